/**
 * A closed-loop row's measured run and its warm-up (bench/run.ts, BENCH_WARMUP): `load` sent for
 * `seconds`, measured, after the same load for `warmup` seconds, not measured (none when 0).
 */
export function withWarmup<T>(seconds: number, warmup: number, load: (duration: number) => PromiseLike<T>) {
  return [
    async () => ({ result: await load(seconds) }),
    warmup > 0 ? async () => void (await load(warmup)) : undefined,
  ] as const;
}
