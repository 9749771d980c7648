/** Nearest-rank percentile (`p` from 0 to 1) of unsorted values; NaN for none. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = values.slice().sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? NaN;
}

/**
 * The 99th percentile of each second's latencies, by when the requests were due: `points` are
 * [due ms after the start, latency ms]. Seconds with no answer are left out.
 */
export function p99BySecond(
  points: ReadonlyArray<readonly [number, number]>,
): Array<{ second: number; answered: number; p99: number }> {
  const seconds = new Map<number, number[]>();
  for (const [due, latency] of points) {
    const second = Math.floor(due / 1000);
    let list = seconds.get(second);
    if (!list) seconds.set(second, (list = []));
    list.push(latency);
  }
  return [...seconds]
    .sort(([a], [b]) => a - b)
    .map(([second, latencies]) => ({ second, answered: latencies.length, p99: percentile(latencies, 0.99) }));
}
