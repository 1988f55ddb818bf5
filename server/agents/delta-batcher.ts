/**
 * Batches streamed text so the conversation gets a handful of events per
 * second instead of one per token: flush after `intervalMs`, or at once when
 * `maxChars` are waiting.
 */
export interface DeltaBatcherOptions {
  intervalMs: number;
  maxChars: number;
}

export const DEFAULT_DELTA_BATCHING: DeltaBatcherOptions = { intervalMs: 50, maxChars: 200 };

export class DeltaBatcher {
  private buffer = "";
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly emit: (delta: string) => void,
    private readonly options: DeltaBatcherOptions = DEFAULT_DELTA_BATCHING,
  ) {}

  push(text: string): void {
    if (text === "") return;
    this.buffer += text;
    if (this.buffer.length >= this.options.maxChars) {
      this.flush();
    } else if (this.timer == null) {
      this.timer = setTimeout(() => this.flush(), this.options.intervalMs);
    }
  }

  flush(): void {
    if (this.timer != null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.buffer === "") return;
    const text = this.buffer;
    this.buffer = "";
    this.emit(text);
  }
}
