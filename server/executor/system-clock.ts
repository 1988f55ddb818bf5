import type { Clock } from "../ports/executor.ts";

/** Wall-clock time and real timers; timers never keep the process alive on their own. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(at, callback) {
    const timer = setTimeout(callback, Math.max(0, at - Date.now()));
    timer.unref?.();
    return { cancel: () => clearTimeout(timer) };
  },
};
