/**
 * Where a burst's CPU went, read from /proc (Linux; elsewhere every figure is null): the
 * machine's busy share over a window, and the CPU seconds of Baton's server processes and
 * of PostgreSQL's backends in it. The scale row's tail is queueing when the machine is
 * busy all through the burst; these figures say whether it was, and who kept it busy.
 */
import fs from "node:fs";

const TICKS_PER_SECOND = 100; // USER_HZ: 100 on every Linux this runs on

interface MachineTicks {
  busy: number;
  total: number;
}

/** Busy and total ticks of all cores since boot (/proc/stat's first line). */
function machineTicks(): MachineTicks | null {
  try {
    const fields = fs.readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
    const total = fields.reduce((sum, value) => sum + value, 0);
    const idle = fields[3] + (fields[4] ?? 0); // idle + iowait
    return { busy: total - idle, total };
  } catch {
    return null;
  }
}

/** A process's user + system ticks and its command name (/proc/PID/stat), or null once it is gone. */
function processTicks(pid: number): { ticks: number; command: string } | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // the command sits in parentheses and may hold spaces; the fields after it are fixed
    const close = stat.lastIndexOf(")");
    const command = stat.slice(stat.indexOf("(") + 1, close);
    const fields = stat.slice(close + 2).split(" ");
    return { ticks: Number(fields[11]) + Number(fields[12]), command };
  } catch {
    return null;
  }
}

/** Ticks of every running process named `command` (PostgreSQL's backends: "postgres"). */
function ticksOfCommand(command: string): Map<number, number> {
  const ticks = new Map<number, number>();
  let entries: string[];
  try {
    entries = fs.readdirSync("/proc");
  } catch {
    return ticks;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const read = processTicks(Number(entry));
    if (read?.command === command) ticks.set(Number(entry), read.ticks);
  }
  return ticks;
}

export interface CpuWindow {
  /** wall seconds of the window */
  seconds: number;
  /** share of all cores busy over the window, 0–1 */
  machineBusy: number | null;
  cores: number;
  /** CPU seconds of each server process given at the start */
  servers: (number | null)[];
  /** CPU seconds of PostgreSQL's processes (backends that ended within the window are missed) */
  postgres: number;
}

/** Starts a window; `end()` reads it. */
export function cpuWindow(serverPids: (number | undefined)[], cores: number): { end(): CpuWindow } {
  const startedAt = performance.now();
  const machine = machineTicks();
  const servers = serverPids.map((pid) => (pid === undefined ? null : (processTicks(pid)?.ticks ?? null)));
  const postgres = ticksOfCommand("postgres");
  return {
    end() {
      const machineNow = machineTicks();
      const postgresNow = ticksOfCommand("postgres");
      let postgresTicks = 0;
      for (const [pid, ticks] of postgresNow) postgresTicks += ticks - (postgres.get(pid) ?? 0);
      return {
        seconds: (performance.now() - startedAt) / 1000,
        machineBusy: machine && machineNow ? (machineNow.busy - machine.busy) / Math.max(1, machineNow.total - machine.total) : null,
        cores,
        servers: serverPids.map((pid, i) => {
          const before = servers[i];
          const now = pid === undefined ? null : (processTicks(pid)?.ticks ?? null);
          return before === null || now === null ? null : (now - before) / TICKS_PER_SECOND;
        }),
        postgres: postgresTicks / TICKS_PER_SECOND,
      };
    },
  };
}
