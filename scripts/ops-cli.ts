/** What the db:* scripts share: where the embedded database lives, and how they end. */
import path from "node:path";

export function dataDirFromEnv(): string {
  return path.resolve(process.env.BATON_DATA_DIR || "./data");
}

export function pgliteDirOf(dataDir: string): string {
  return path.join(dataDir, "pglite");
}

/** Runs `main`; a thrown error prints its message (not a stack: these are user-facing) and exits 1. */
export function runCli(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : String(error));
      process.exit(1);
    },
  );
}

export function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
