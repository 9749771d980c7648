import { describe, expect, it } from 'vitest';
import { costFigures, costTable, type VariantSlices } from '../../bench/routing-cost-summary.ts';

const slices = (name: string, serverMs: Array<number | null>): VariantSlices => ({
  name,
  slices: serverMs.map((ms) => ({ serverMs: ms, rate: 100, failed: 0 })),
});

/** The smart-routing cost's figures of `npm run bench` (bench/routing-cost-summary.ts). */
describe('bench/routing-cost-summary.ts', () => {
  it('pairs each slice with the static slice of its round: median difference, its range, median ratio', () => {
    const base = slices('static', [1.0, 2.0, 1.5]);
    const [figures] = costFigures(base, [slices('success_rate', [1.05, 2.3, 1.52])], 0.1);
    expect(figures!.name).toBe('success_rate');
    expect(figures!.serverMs).toBeCloseTo(1.52, 9);
    expect(figures!.extraMs!.median).toBeCloseTo(0.05, 9);
    expect(figures!.extraMs!.min).toBeCloseTo(0.02, 9);
    expect(figures!.extraMs!.max).toBeCloseTo(0.3, 9);
    expect(figures!.ratio).toBeCloseTo(1.05, 9);
    expect(figures!.met).toBe(true);
  });

  it('says NOT met when the median extra reaches the aim, and unknown without CPU readings', () => {
    const base = slices('static', [1.0, 1.0]);
    const table = costTable(base, [slices('least_cost', [1.1, 1.2]), slices('success_rate', [null, null])], 0.1);
    expect(table).toContain('| least_cost | 1.150 | +0.150 (0.100 to 0.200) | 1.150 | NOT met |');
    expect(table).toContain('| success_rate | – | – | – | unknown |');
    expect(table).toContain('| static | 1.000 | – | – | – |');
  });

  it('says when the pairs span 0 (the difference is within the noise of the host)', () => {
    const table = costTable(slices('static', [1.0, 1.0, 1.0]), [slices('least_cost', [0.9, 1.05, 1.3])], 0.1);
    expect(table).toContain(
      '| least_cost | 1.050 | +0.050 (-0.100 to 0.300) | 1.050 | met (the pairs span 0: within the noise) |',
    );
  });

  it('leaves out a round whose static slice has no reading (an even count takes the mean of the middle two)', () => {
    const base = slices('static', [1.0, null, 2.0]);
    const [figures] = costFigures(base, [slices('success_rate', [0.9, 5, 2.5])], 0.1);
    expect(figures!.extraMs!.median).toBeCloseTo(0.2, 9);
    expect(figures!.met).toBe(false);
  });
});
