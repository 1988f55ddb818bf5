/**
 * Child side of ipc-child.ts: the message loop of a test process. Each request
 * `{ id, type, … }` is answered `{ id, ok, value | error }` (values as JSON); `stop`
 * closes the process's resources, answers, and exits. The first message says ready.
 */
type IpcRequest = { id: number; type: string };

export function serveIpcRequests<R extends IpcRequest>(input: {
  /** answers one request other than `stop` */
  handle(message: Exclude<R, { type: "stop" }>): Promise<unknown>;
  /** closes what the process opened, before it exits */
  stop(): Promise<void>;
  /** the value of the first message (id 0) */
  ready: unknown;
}): void {
  process.on("message", async (message: R) => {
    try {
      if (message.type === "stop") {
        await input.stop();
        process.send?.({ id: message.id, ok: true, value: null }, () => process.exit(0));
        return;
      }
      const value = await input.handle(message as Exclude<R, { type: "stop" }>);
      process.send?.({ id: message.id, ok: true, value: JSON.parse(JSON.stringify(value ?? null)) as unknown });
    } catch (error) {
      process.send?.({ id: message.id, ok: false, error: error instanceof Error ? error.message : String(error) });
    }
  });
  process.send?.({ id: 0, ok: true, value: input.ready });
}
