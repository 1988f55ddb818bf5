/** Parent side of server-process.ts: spawn, await ready (or the exit that replaced it), request, stop. */
import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

const SCRIPT = fileURLToPath(new URL("./server-process.ts", import.meta.url));

type Reply = { id: number; ok: boolean; value?: unknown; error?: string };

export class ServerProcess {
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  /** everything the process wrote to stderr (start-up failures name their cause here) */
  stderr = "";
  readonly ready: Promise<{ port: number; pid: number }>;

  private constructor(readonly child: ChildProcess) {
    child.stderr?.on("data", (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.ready = new Promise((resolve, reject) => {
      const onExit = (code: number | null, signal: string | null) =>
        reject(new Error(`server process exited before ready (${code ?? signal}): ${this.stderr.slice(-2000)}`));
      child.once("exit", onExit);
      child.once("message", (reply: Reply) => {
        child.off("exit", onExit);
        resolve(reply.value as { port: number; pid: number });
      });
    });
    this.ready.catch(() => {});
    child.on("message", (reply: Reply) => {
      const waiter = this.waiting.get(reply.id);
      if (!waiter) return;
      this.waiting.delete(reply.id);
      if (reply.ok) waiter.resolve(reply.value);
      else waiter.reject(new Error(reply.error));
    });
    child.on("exit", () => {
      for (const waiter of this.waiting.values()) waiter.reject(new Error("server process exited"));
      this.waiting.clear();
    });
  }

  /** Spawns at once; `ready` settles when the process serves (or exits). */
  static spawn(env: Record<string, string>): ServerProcess {
    const child = fork(SCRIPT, [], {
      execArgv: ["--import", "tsx"],
      env: { ...process.env, NODE_ENV: "test", ...env },
      stdio: ["ignore", "inherit", "pipe", "ipc"],
    });
    return new ServerProcess(child);
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
}
