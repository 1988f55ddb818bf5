/**
 * Shown the moment a page inside the app is asked for, until it is ready: a slow network
 * gets a moving bar at the top and a placeholder, never seconds of the old page.
 */
export default function Loading() {
  return (
    <div className="relative flex min-w-0 flex-1 flex-col" role="status" aria-live="polite" data-testid="page-loading">
      <div aria-hidden className="absolute inset-x-0 top-0 h-0.5 overflow-hidden bg-accent/20">
        <div className="h-full w-1/3 animate-loading-bar bg-accent" />
      </div>
      <div aria-hidden className="flex items-center gap-2 border-b border-zinc-200 px-3 py-3 dark:border-zinc-800">
        <div className="h-4 w-48 animate-pulse rounded bg-zinc-200 dark:bg-zinc-800" />
      </div>
      <div aria-hidden className="flex flex-1 flex-col gap-4 p-4">
        {[0, 1, 2].map((row) => (
          <div key={row} className="flex gap-3">
            <div className="h-8 w-8 shrink-0 animate-pulse rounded-full bg-zinc-200 dark:bg-zinc-800" />
            <div className="flex flex-1 flex-col gap-2">
              <div className="h-3 w-32 animate-pulse rounded bg-zinc-200 dark:bg-zinc-800" />
              <div className="h-3 w-3/4 animate-pulse rounded bg-zinc-200 dark:bg-zinc-800" />
            </div>
          </div>
        ))}
      </div>
      <span className="sr-only">Loading…</span>
    </div>
  );
}
