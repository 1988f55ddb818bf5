/**
 * The outage lines are about the process. In the live run every "the database is back"
 * line carried the request id of whichever request had made the pool connect again, so
 * `jq 'select(.requestId == …)'` on that request showed an outage it had nothing to do with.
 */
import { expect, it } from "vitest";
import { currentRequestId, withRequestId } from "../observability/request-id.ts";
import { outageLog } from "./pg-guard.ts";

it("writes its lines outside the request whose work dropped or made the connection", () => {
  const seen: { level: string; requestId: string | undefined; msg: string }[] = [];
  const at = (level: string) => (_fields: object, msg: string) => void seen.push({ level, requestId: currentRequestId(), msg });
  let clock = 1_000;
  const outage = outageLog({ warn: at("warn"), info: at("info"), debug: at("debug") } as never, () => clock);
  withRequestId("request-a", () => {
    outage.dropped("prisma", new Error("terminating connection"));
    outage.dropped("prisma", new Error("terminating connection"));
  });
  clock += 2_500;
  withRequestId("request-b", () => outage.connected("prisma"));
  expect(seen.map(({ level, requestId }) => ({ level, requestId }))).toEqual([
    { level: "warn", requestId: undefined },
    { level: "debug", requestId: undefined },
    { level: "info", requestId: undefined },
  ]);
  expect(seen[2].msg).toBe("the database is back: connected again 2.5 s after connections dropped (2 dropped)");
});

it("tells reachability once when connections start dropping and once when one is made again", () => {
  const told: boolean[] = [];
  const quiet = () => {};
  const outage = outageLog({ warn: quiet, info: quiet, debug: quiet } as never, Date.now, (reachable) => told.push(reachable));
  outage.connected("prisma");
  outage.dropped("prisma", new Error("terminating connection"));
  outage.dropped("socket", new Error("terminating connection"));
  outage.connected("prisma");
  outage.connected("socket");
  expect(told).toEqual([false, true]);
});
