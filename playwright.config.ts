/**
 * Browser tests against a freshly built app on a free port with an empty data dir.
 * Chromium is Debian's (`apt-get install -y chromium`); Playwright's own download
 * cannot work offline. The port and data dir are chosen once and passed to the
 * workers through the environment, since this file is evaluated in each process.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { defineConfig, devices } from "@playwright/test";

function freePort(): string {
  const script =
    "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{process.stdout.write(String(s.address().port));s.close()})";
  return execFileSync(process.execPath, ["-e", script], { encoding: "utf8" }).trim();
}

process.env.BATON_E2E_PORT ??= freePort();
// the loopback fake model server a spec starts on this port: the app's `local:` models talk to it
process.env.BATON_E2E_FAKE_MODEL_PORT ??= freePort();
process.env.BATON_E2E_DATA_DIR ??= fs.mkdtempSync(path.join(os.tmpdir(), "baton-e2e-"));
const port = process.env.BATON_E2E_PORT;
/** set to test a server that is already running (then no webServer is started) */
const external = process.env.BATON_E2E_BASE_URL;
const baseURL = external ?? `http://127.0.0.1:${port}`;

export default defineConfig({
  testDir: "e2e",
  testMatch: "**/*.spec.ts",
  // one server, one database: the scenarios share the first (admin) account
  workers: 1,
  fullyParallel: false,
  timeout: 90_000,
  expect: { timeout: 20_000 },
  retries: process.env.CI ? 1 : 0,
  reporter: [["list"]],
  outputDir: "test-results",
  use: {
    ...devices["Desktop Chrome"],
    baseURL,
    viewport: { width: 1400, height: 900 },
    trace: "retain-on-failure",
    launchOptions: {
      executablePath: process.env.BATON_CHROMIUM ?? "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
      ],
    },
  },
  webServer: external
    ? undefined
    : {
        // what `npm start` runs: the compiled server (BATON_E2E_SKIP_BUILD reuses .next, the server compiles in seconds)
        command: process.env.BATON_E2E_SKIP_BUILD
          ? "npm run --silent build:server && node --enable-source-maps build/server/index.mjs"
          : "npm run --silent build && node --enable-source-maps build/server/index.mjs",
        url: `${baseURL}/sign-in`,
        timeout: 240_000,
        reuseExistingServer: false,
        stdout: "pipe",
        stderr: "pipe",
        env: {
          NODE_ENV: "production",
          PORT: port,
          HOST: "127.0.0.1",
          BATON_DATA_DIR: process.env.BATON_E2E_DATA_DIR,
          // no BETTER_AUTH_URL: the tests sign up exactly as a fresh `npm start` is reached
          BATON_SEED_DEMO: "1",
          // every scenario of a worker reuses the admin's session: its page loads are not one person's
          BATON_SOCKET_HANDSHAKES_PER_USER: "10000",
          // e2e/28-outage-page.spec.ts: a cookie makes a page's reads fail as in an outage
          BATON_TEST_HOOK_FORCED_OUTAGE: "1",
          LOCAL_MODEL_BASE_URL: `http://127.0.0.1:${process.env.BATON_E2E_FAKE_MODEL_PORT}/v1`,
        },
      },
});
