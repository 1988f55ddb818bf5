/**
 * The embedded database's files are the whole workspace — messages, sessions, secrets
 * typed into forms — so only the server's own user may read them: folders 0700, files
 * 0600. PGlite's file system layer creates its files 0666 whatever the umask, so the
 * data folder is made private before the database opens (which covers what it creates
 * later: nobody else can enter the folder) and the tree is tightened after it opened
 * (which fixes folders left readable by older versions).
 */
import { chmod, lstat, mkdir, readdir } from "node:fs/promises";
import path from "node:path";

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Creates `dir` (and missing parents) private to this user; an existing `dir` is made private. */
export async function ensurePrivateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  await chmod(dir, PRIVATE_DIR_MODE);
}

/** Every folder under `root` (itself included) 0700 and every file 0600; symbolic links are left alone. */
export async function makeTreePrivate(root: string): Promise<void> {
  const info = await lstat(root);
  if (info.isSymbolicLink()) return;
  if (info.isDirectory()) {
    if ((info.mode & 0o777) !== PRIVATE_DIR_MODE) await chmod(root, PRIVATE_DIR_MODE);
    for (const entry of await readdir(root)) await makeTreePrivate(path.join(root, entry));
  } else if ((info.mode & 0o777 & ~PRIVATE_FILE_MODE) !== 0) {
    // an executable bit for the owner is kept off too: nothing in a database folder runs
    await chmod(root, PRIVATE_FILE_MODE);
  }
}
