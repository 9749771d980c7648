/** What `eachOnce` hands the run it builds. */
export interface EachOnceHooks<T> {
  /** autocannon's `amount`: one request per item. */
  amount: number;
  /** The next item, for `setupRequest`. */
  next: () => T;
  /** For `onResponse`: when the last response came. */
  onResponse: () => void;
}

/**
 * An autocannon run that sends exactly one request per item (fresh tokens, transactions to
 * capture), with its real duration. autocannon ends a run only on a whole-second tick: `stop()`
 * keeps sending until then (so items would be reused: a "fresh" token already in the verified-token
 * cache), and with `amount` the duration it reports is rounded up to that tick. So the run sends
 * `amount` requests, and the duration is measured from the start to the last response.
 */
export async function eachOnce<T, R extends { duration: number }>(
  items: readonly T[],
  start: (hooks: EachOnceHooks<T>) => PromiseLike<R>,
): Promise<R> {
  if (items.length === 0) throw new Error('eachOnce needs at least one item');
  let used = 0;
  let last = 0;
  const began = Date.now();
  const result = await start({
    amount: items.length,
    next: () => items[used++]!,
    onResponse: () => (last = Date.now()),
  });
  return { ...result, duration: (last - began) / 1000 };
}
