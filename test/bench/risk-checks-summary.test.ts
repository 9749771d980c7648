import { describe, expect, it } from 'vitest';
import { riskChecksTable, type RiskChecksFigures } from '../../bench/risk-checks-summary.ts';

const figures = (over: Partial<RiskChecksFigures> = {}): RiskChecksFigures => ({
  database: 'PGlite',
  authorizations: 4000,
  perSecond: 200,
  entries: 1000,
  syncSeconds: 10,
  soleWriter: true,
  blocklistUs: 8,
  velocityUs: 40,
  guardUs: 12,
  syncsUs: 30,
  processUs: 110,
  ...over,
});

/** The risk checks' figures of `npm run bench` (bench/risk-checks-summary.ts). */
describe('bench/risk-checks-summary.ts', () => {
  it('sums the parts and judges the aim on the larger of the sum and the whole process', () => {
    const table = riskChecksTable(figures());
    expect(table).toContain('| blocklist check (1,000 entries) | 8.0 |');
    expect(table).toContain('| sum of the parts | 90.0 |');
    expect(table).toContain("every 10 s each account's counts journalled, a row per minute, nothing read back");
    expect(table).toContain('under 200 µs per authorization: met (110.0 µs, 55 % of it)');
  });

  it('says NOT met at the aim, even when the process total is below the sum of the parts', () => {
    const table = riskChecksTable(figures({ soleWriter: false, syncSeconds: 1, syncsUs: 140, processUs: 150 }));
    expect(table).toContain("written and everyone's changes read every 1 s");
    expect(table).toContain('NOT met (200.0 µs, 100 % of it)');
  });
});
