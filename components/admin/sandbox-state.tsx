import type { SandboxView } from "@/server/protocol/rest/admin-views.ts";

/** Whether agents' commands run sandboxed here; a banner when they are refused or run without one. */
export function SandboxState({ sandbox }: { sandbox: SandboxView }) {
  if (sandbox.state === "ready") {
    return (
      <section aria-labelledby="sandbox-title" className="space-y-1" data-testid="sandbox-state" data-state="ready">
        <h2 id="sandbox-title" className="text-sm font-semibold">
          Command sandbox
        </h2>
        <p className="text-sm text-zinc-600 dark:text-zinc-400">
          Ready: agents&apos; commands and <code>cli:</code> agents run in a sandbox that sees only their slot and the toolchain.
        </p>
      </section>
    );
  }
  const bypassed = sandbox.state === "unsandboxed";
  return (
    <section
      role="alert"
      aria-labelledby="sandbox-title"
      data-testid="sandbox-state"
      data-state={sandbox.state}
      className="space-y-1 rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-900 dark:border-red-800 dark:bg-red-950/40 dark:text-red-100"
    >
      <h2 id="sandbox-title" className="font-semibold">
        {bypassed ? "Agents' commands run WITHOUT a sandbox" : "Command sandbox unavailable: agents' commands are refused"}
      </h2>
      <p>
        {bypassed
          ? "BATON_UNSANDBOXED_COMMANDS=1 is set and the sandbox cannot start, so a command an agent runs can read this server's files and secrets."
          : "Steps that run commands (slot_run) and cli: agents fail until the sandbox can start."}{" "}
        Reason: {sandbox.reason}
      </p>
      <p>
        Fix on the server: <code>{sandbox.fix}</code>
        {bypassed ? ", then remove BATON_UNSANDBOXED_COMMANDS and restart." : ", then restart."}
      </p>
    </section>
  );
}
