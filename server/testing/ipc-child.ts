/**
 * A child process running a TypeScript script, driven over IPC by tests that need real
 * process boundaries (SIGKILL, several processes on one database). Requests carry an id;
 * the child answers `{ id, ok, value | error }`. Subclasses name the script and what
 * "ready" means.
 */
import { fork, type ChildProcess, type StdioOptions } from "node:child_process";

export type IpcReply = { id: number; ok: boolean; value?: unknown; error?: string };

export function forkScript(script: string, env: Record<string, string>, stdio: StdioOptions): ChildProcess {
  return fork(script, [], { execArgv: ["--import", "tsx"], env: { ...process.env, NODE_ENV: "test", ...env }, stdio });
}

export class IpcChild {
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();

  constructor(
    readonly child: ChildProcess,
    what: string,
  ) {
    child.on("message", (reply: IpcReply) => {
      const waiter = this.waiting.get(reply.id);
      if (!waiter) return;
      this.waiting.delete(reply.id);
      if (reply.ok) waiter.resolve(reply.value);
      else waiter.reject(new Error(reply.error));
    });
    child.on("exit", () => {
      for (const waiter of this.waiting.values()) waiter.reject(new Error(`${what} exited`));
      this.waiting.clear();
    });
  }

  request<T>(message: Record<string, unknown>): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve, reject });
      this.child.send({ ...message, id });
    });
  }

  /** SIGKILL, resolved once the process is gone. */
  kill(): Promise<void> {
    return new Promise((resolve) => {
      if (this.child.exitCode !== null || this.child.signalCode !== null) return resolve();
      this.child.once("exit", () => resolve());
      this.child.kill("SIGKILL");
    });
  }
}
