/**
 * Serialises async work per key inside one process. The database lock is what makes
 * a conversation's reconcile atomic across processes; this only keeps one process
 * from queueing many connections on the same advisory lock.
 *
 * A turn can also carry a batch: `join` adds an item to the batch that waits for the
 * key's next turn, so requests that pile up behind a busy key are handled together
 * (the executor writes several runs' results in one statement). Items join only a
 * batch that is the last thing queued for the key: anything queued after it (`run`)
 * closes it, so nothing ever overtakes work that was queued before it.
 */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<unknown>>();
  /** per key, the batch still waiting for its turn at the end of the queue (items may join it) */
  private readonly open = new Map<string, unknown[]>();

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    this.open.delete(key);
    return this.enqueue(key, work);
  }

  /**
   * Adds `item` to the open batch for `key`, or queues a turn with a new batch that
   * `handle` receives when the turn comes (`handle` owns each item's outcome: a batch's
   * failure is not reported anywhere else). A batch is closed when its turn starts, when
   * something else is queued after it, or when it holds `max` items.
   */
  join<I>(key: string, item: I, handle: (items: I[]) => Promise<void>, max: number): void {
    const open = this.open.get(key) as I[] | undefined;
    if (open) {
      open.push(item);
      if (open.length >= max) this.open.delete(key);
      return;
    }
    const batch = [item];
    if (max > 1) this.open.set(key, batch);
    void this.enqueue(key, () => {
      if (this.open.get(key) === batch) this.open.delete(key);
      return handle(batch);
    }).catch(() => undefined);
  }

  private enqueue<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(work, work);
    const tail = result.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}
