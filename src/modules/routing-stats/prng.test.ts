import { describe, expect, it } from 'vitest';
import { sampleBeta, seededRandom } from './prng.ts';

describe('seededRandom', () => {
  it('gives the same draws for the same seed, others for another, uniform in [0, 1)', () => {
    const a = seededRandom('018f-txn');
    const b = seededRandom('018f-txn');
    const draws = Array.from({ length: 10_000 }, () => a());
    expect(Array.from({ length: 10_000 }, () => b())).toEqual(draws);
    expect(seededRandom('018f-txm')()).not.toBe(draws[0]);
    expect(Math.min(...draws)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...draws)).toBeLessThan(1);
    expect(draws.reduce((s, x) => s + x, 0) / draws.length).toBeCloseTo(0.5, 1);
  });
});

describe('sampleBeta', () => {
  it.each([
    [1, 1],
    [3, 7],
    [90, 10],
    [2000, 500],
  ])('Beta(%i, %i) draws have its mean and variance', (alpha, beta) => {
    const random = seededRandom(`beta-${alpha}-${beta}`);
    const n = 20_000;
    const draws = Array.from({ length: n }, () => sampleBeta(alpha, beta, random));
    const mean = draws.reduce((s, x) => s + x, 0) / n;
    const variance = draws.reduce((s, x) => s + (x - mean) ** 2, 0) / n;
    const trueMean = alpha / (alpha + beta);
    const trueVariance = (alpha * beta) / ((alpha + beta) ** 2 * (alpha + beta + 1));
    expect(Math.abs(mean - trueMean)).toBeLessThan(5 * Math.sqrt(trueVariance / n));
    expect(variance / trueVariance).toBeGreaterThan(0.9);
    expect(variance / trueVariance).toBeLessThan(1.1);
  });
});
