/**
 * Tells a web node's browsers when the node cannot reach its database, and when it can
 * again: their live indicator otherwise says "live" while every change waits. A state
 * must hold for `settleMs` before it is told, so a database that flaps costs the sockets
 * nothing; only a change from what was last told is sent. Sent to this node's own sockets
 * (io.local): a broadcast through the adapter would itself need the database.
 */
export interface DatabaseStatus {
  reachable: boolean;
}

export const DATABASE_STATUS_SETTLE_MS = 1_000;

export function announceDatabaseStatus(input: {
  subscribe: (listener: (reachable: boolean) => void) => () => void;
  emitToAll: (status: DatabaseStatus) => void;
  settleMs?: number;
}): { /** what a socket that just connected should be told, if anything */ current(): DatabaseStatus | null; stop(): void } {
  let told = true;
  let latest = true;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const unsubscribe = input.subscribe((reachable) => {
    latest = reachable;
    clearTimeout(timer);
    timer = setTimeout(() => {
      if (latest === told) return;
      told = latest;
      input.emitToAll({ reachable: told });
    }, input.settleMs ?? DATABASE_STATUS_SETTLE_MS);
    // a pending notice never holds a shutdown
    timer.unref?.();
  });
  return {
    current: () => (told ? null : { reachable: false }),
    stop() {
      clearTimeout(timer);
      unsubscribe();
    },
  };
}
