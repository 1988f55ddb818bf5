import { withApiToken } from "@/server/http/api-v1.ts";
import { eventLoopStats, resetEventLoopStats } from "@/server/http/event-loop-monitor.ts";

/**
 * The server process's health figures: event-loop delay since the window began, CPU
 * time used since the process started (what a noisy machine cannot inflate), and how
 * units of work ran.
 */
export async function GET(request: Request) {
  return withApiToken(request, async ({ executor }) => {
    const cpu = process.cpuUsage();
    return Response.json({
      eventLoopDelayMs: eventLoopStats(),
      cpuMs: { user: cpu.user / 1000, system: cpu.system / 1000 },
      units: executor.stats,
    });
  });
}

/** Starts a new measuring window. */
export async function DELETE(request: Request) {
  return withApiToken(request, async () => {
    resetEventLoopStats();
    return Response.json({ eventLoopDelayMs: eventLoopStats() });
  });
}
