/** What test/platform/linear-patterns.test.ts measures with. */

export const MIB = 1024 * 1024;

/** The bound on a pattern's work over a 1 MiB input (issue 48): a super-linear one takes seconds to hours. */
export const CPU_LIMIT_MS = 100;

/**
 * How many times the yardstick's CPU a measured case may take on a host where 100 ms is too tight.
 * The yardstick took 4.5 ms alone on a host six times slower than usual, so about 1 ms on a usual
 * one, where the bound stays CPU_LIMIT_MS.
 */
const YARDSTICK_FACTOR = 25;
const YARDSTICK_INPUT = 'a1'.repeat(MIB / 2);
/** Holds each pass's result, so that the pass is not optimized away. */
const yardstickSink = { value: 0 };

/**
 * The least CPU of five known-linear passes over 1 MiB (each character read once), in this process,
 * now: the speed of this host at this moment. A CPU-starved virtual machine's accounting counts
 * time it did not get (the same `/\D/g` over 1 MiB measured 60 ms alone and 4.7 s during a full
 * test run on one host), and it counts it for the yardstick as for the case measured beside it.
 */
export function yardstickMs(): number {
  let best = Infinity;
  for (let run = 0; run < 5; run++)
    best = Math.min(
      best,
      syncCpuMs(() => {
        let h = 0;
        for (let i = 0; i < YARDSTICK_INPUT.length; i++) h = (h * 31 + YARDSTICK_INPUT.charCodeAt(i)) | 0;
        yardstickSink.value ^= h;
      }),
    );
  return best;
}

/** The bound for a case measured now: CPU_LIMIT_MS, or YARDSTICK_FACTOR yardsticks on a slower host. */
export function cpuLimitMs(): number {
  return Math.max(CPU_LIMIT_MS, YARDSTICK_FACTOR * yardstickMs());
}

/** Milliseconds of CPU (user and system, the whole process) spent while `work` runs. */
export async function cpuMs(work: () => unknown): Promise<number> {
  const start = process.cpuUsage();
  await work();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

/**
 * The least CPU of up to five runs of `work`, stopping at the first under the limit, and the limit
 * it is held to: the first run pays for compiling the pattern, and a collection or a busy neighbour
 * on a shared machine can slow any one run (the same linear work measured from 40 to 110 ms on a
 * loaded 2-core host); a slow pattern is slow in all (one run ten times over the limit is not tried
 * again). After a run over the limit the yardstick is measured again (`cpuLimitMs`), so the limit
 * follows the host's speed at that moment, not only at the case's start: a linear format measured
 * 105 ms beside a 100-ms limit in one CI run, its yardstick taken earlier under 4 ms.
 * `startLimit` is the case's `cpuLimitMs()`, taken once for many inputs (five yardstick passes each).
 */
export function bestCpuWithinLimit(work: () => unknown, startLimit: number): { best: number; limit: number } {
  let limit = startLimit;
  let best = Infinity;
  for (let run = 0; run < 5 && best >= limit && (run === 0 || best < 10 * limit); run++) {
    best = Math.min(best, syncCpuMs(work));
    if (best >= limit) limit = Math.max(limit, cpuLimitMs());
  }
  return { best, limit };
}

/** Milliseconds of CPU (user and system, the whole process) one synchronous run of `work` takes. */
function syncCpuMs(work: () => unknown): number {
  const start = process.cpuUsage();
  work();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}
