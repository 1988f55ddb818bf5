/** Parent side of server-process.ts: spawn, await ready (or the exit that replaced it), request, stop. */
import type { ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { forkScript, IpcChild, type IpcReply } from "./ipc-child.ts";

const SCRIPT = fileURLToPath(new URL("./server-process.ts", import.meta.url));

export class ServerProcess extends IpcChild {
  /** everything the process wrote to stderr (start-up failures name their cause here) */
  stderr = "";
  readonly ready: Promise<{ port: number; pid: number }>;

  private constructor(child: ChildProcess) {
    super(child, "server process");
    child.stderr?.on("data", (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.ready = new Promise((resolve, reject) => {
      const onExit = (code: number | null, signal: string | null) =>
        reject(new Error(`server process exited before ready (${code ?? signal}): ${this.stderr.slice(-2000)}`));
      child.once("exit", onExit);
      child.once("message", (reply: IpcReply) => {
        child.off("exit", onExit);
        resolve(reply.value as { port: number; pid: number });
      });
    });
    this.ready.catch(() => {});
  }

  /** Spawns at once; `ready` settles when the process serves (or exits). */
  static spawn(env: Record<string, string>): ServerProcess {
    return new ServerProcess(forkScript(SCRIPT, env, ["ignore", "inherit", "pipe", "ipc"]));
  }
}
