/** What test/platform/linear-patterns.test.ts measures with. */

export const MIB = 1024 * 1024;

/** The bound on a pattern's work over a 1 MiB input (issue 48): a super-linear one takes seconds to hours. */
export const CPU_LIMIT_MS = 100;

/** Milliseconds of CPU (user and system, the whole process) spent while `work` runs. */
export async function cpuMs(work: () => unknown): Promise<number> {
  const start = process.cpuUsage();
  await work();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

/**
 * The least CPU of up to five runs of `work`, stopping at the first under the limit: the first run
 * pays for compiling the pattern, and a collection or a busy neighbour on a shared machine can slow
 * any one run (the same linear work measured from 40 to 110 ms on a loaded 2-core host); a slow
 * pattern is slow in all (one run ten times over the limit is not tried again).
 */
export function bestCpuMs(work: () => unknown): number {
  let best = Infinity;
  for (let run = 0; run < 5 && best >= CPU_LIMIT_MS && (run === 0 || best < 10 * CPU_LIMIT_MS); run++) {
    const start = process.cpuUsage();
    work();
    const used = process.cpuUsage(start);
    best = Math.min(best, (used.user + used.system) / 1000);
  }
  return best;
}
