/**
 * The embedded database's speed-up rests on one V8 option (wasm-tiering.ts). V8 answers
 * an option it no longer knows with a line on stderr and nothing else, so an upgrade that
 * dropped or renamed it would silently slow every statement. This fails instead.
 */
import { spawnSync } from "node:child_process";
import { expect, it } from "vitest";

const setAtRunTime = (flag: string) =>
  spawnSync(process.execPath, ["-e", `require("node:v8").setFlagsFromString(${JSON.stringify(flag)})`], { encoding: "utf8" });

it("this Node's V8 accepts the option the embedded database sets at run time", () => {
  expect(setAtRunTime("--no-wasm-dynamic-tiering").stderr).toBe("");
  // the check can fail: an unknown option is reported
  expect(setAtRunTime("--no-wasm-dynamic-tiering-gone").stderr).toMatch(/unrecognized flag/);
});
