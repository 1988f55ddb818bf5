/** Parent side of executor-process.ts: spawn, send requests, await replies, kill. */
import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

const SCRIPT = fileURLToPath(new URL("./executor-process.ts", import.meta.url));

export class ExecutorProcess {
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  private constructor(readonly child: ChildProcess) {
    child.on("message", (reply: { id: number; ok: boolean; value?: unknown; error?: string }) => {
      const waiter = this.waiting.get(reply.id);
      if (!waiter) return;
      this.waiting.delete(reply.id);
      if (reply.ok) waiter.resolve(reply.value);
      else waiter.reject(new Error(reply.error));
    });
    child.on("exit", () => {
      for (const waiter of this.waiting.values()) waiter.reject(new Error("executor process exited"));
      this.waiting.clear();
    });
  }

  static start(env: Record<string, string>): Promise<ExecutorProcess> {
    const child = fork(SCRIPT, [], {
      execArgv: ["--import", "tsx"],
      env: { ...process.env, NODE_ENV: "test", ...env },
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`executor process exited early (${code})`));
      child.once("exit", onExit);
      child.once("message", () => {
        child.off("exit", onExit);
        resolve(new ExecutorProcess(child));
      });
    });
  }

  request<T>(message: Record<string, unknown>): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve, reject });
      this.child.send({ ...message, id });
    });
  }

  kill(): Promise<void> {
    return new Promise((resolve) => {
      if (this.child.exitCode !== null || this.child.signalCode !== null) return resolve();
      this.child.once("exit", () => resolve());
      this.child.kill("SIGKILL");
    });
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    await this.request({ type: "stop" }).catch(() => undefined);
  }
}
