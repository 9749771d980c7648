/**
 * The figures of the smart-routing cost of `npm run bench` (bench/routing-cost.ts), from its
 * interleaved slices: for each strategy, the server CPU per authorization against the static rule's
 * slice of the same round (the difference in ms and the ratio), as the median over the rounds with
 * its range, and whether the aim (under 0.1 ms of server CPU per authorization) was met.
 */

/** What one measured slice of one variant gave. */
export interface CostSlice {
  /** Server CPU ms per authorization (null where /proc cannot be read). */
  serverMs: number | null;
  rate: number;
  failed: number;
}

/** A variant's slices, one per round, in round order (round i of every variant ran side by side). */
export interface VariantSlices {
  name: string;
  slices: CostSlice[];
}

export interface CostFigures {
  name: string;
  /** Median of the variant's own slices. */
  serverMs: number | null;
  /** Median, smallest and largest of (variant − static) in the same round, ms per authorization. */
  extraMs: { median: number; min: number; max: number } | null;
  /** Median of variant ÷ static in the same round. */
  ratio: number | null;
  /** extraMs.median < aimMs; null when unknown. */
  met: boolean | null;
}

export const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** Figures of each variant against `baseline` (the static rule), pairing slices by round. */
export function costFigures(baseline: VariantSlices, variants: VariantSlices[], aimMs: number): CostFigures[] {
  const own = (slices: CostSlice[]) => {
    const values = slices.map((s) => s.serverMs).filter((v): v is number => v !== null);
    return values.length ? median(values) : null;
  };
  return variants.map(({ name, slices }) => {
    const differences: number[] = [];
    const ratios: number[] = [];
    slices.forEach((slice, round) => {
      const base = baseline.slices[round]?.serverMs ?? null;
      if (slice.serverMs === null || base === null) return;
      differences.push(slice.serverMs - base);
      if (base > 0) ratios.push(slice.serverMs / base);
    });
    const extraMs = differences.length
      ? { median: median(differences), min: Math.min(...differences), max: Math.max(...differences) }
      : null;
    return {
      name,
      serverMs: own(slices),
      extraMs,
      ratio: ratios.length ? median(ratios) : null,
      met: extraMs ? extraMs.median < aimMs : null,
    };
  });
}

const fixed = (value: number | null, digits: number) => (value === null ? '–' : value.toFixed(digits));

/** The printed table and the aim's verdict for each strategy. */
export function costTable(baseline: VariantSlices, variants: VariantSlices[], aimMs: number): string {
  const base = costFigures(baseline, [baseline], aimMs)[0]!;
  const lines = [
    '| route rule | server CPU ms/authorization (median) | extra vs static, ms: median (range) | × static (median) | aim < ' +
      `${aimMs} ms |`,
    '|---|---:|---:|---:|---|',
    `| ${baseline.name} | ${fixed(base.serverMs, 3)} | – | – | – |`,
  ];
  for (const f of costFigures(baseline, variants, aimMs)) {
    const extra = f.extraMs
      ? `${f.extraMs.median >= 0 ? '+' : ''}${f.extraMs.median.toFixed(3)} (${f.extraMs.min.toFixed(3)} to ${f.extraMs.max.toFixed(3)})`
      : '–';
    // A range of pairs that spans 0 says the host's noise is larger than the difference measured.
    const noise = f.extraMs && f.extraMs.min < 0 && f.extraMs.max > 0 ? ' (the pairs span 0: within the noise)' : '';
    const verdict = f.met === null ? 'unknown' : `${f.met ? 'met' : 'NOT met'}${noise}`;
    lines.push(`| ${f.name} | ${fixed(f.serverMs, 3)} | ${extra} | ${fixed(f.ratio, 3)} | ${verdict} |`);
  }
  return lines.join('\n');
}
