/** Parent side of executor-process.ts: spawn, send requests, await replies, kill. */
import { fileURLToPath } from "node:url";
import { forkScript, IpcChild } from "../../testing/ipc-child.ts";

const SCRIPT = fileURLToPath(new URL("./executor-process.ts", import.meta.url));

export class ExecutorProcess extends IpcChild {
  /** Resolves once the process has booted (its first message), or rejects if it exits first. */
  static start(env: Record<string, string>): Promise<ExecutorProcess> {
    const child = forkScript(SCRIPT, env, ["ignore", "inherit", "inherit", "ipc"]);
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`executor process exited early (${code})`));
      child.once("exit", onExit);
      child.once("message", () => {
        child.off("exit", onExit);
        resolve(new ExecutorProcess(child, "executor process"));
      });
    });
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    await this.request({ type: "stop" }).catch(() => undefined);
  }
}
