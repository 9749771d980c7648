import { describe, expect, it } from 'vitest';
import { describeParts, serverTimingParts } from '../../bench/latency-parts.ts';
import { percentile } from '../../bench/percentile.ts';
import { serverTimingHeader } from '../../src/observability/request-timing.ts';

/** The parts of a request's time read off its Server-Timing header (bench/latency-parts.ts). */
describe('bench/latency-parts.ts', () => {
  it("reads the server's own header: db, connector and app, with 0 for a part it lacks", () => {
    const withConnector = serverTimingHeader(
      { dbMs: 4.5, dbStatements: 3, connectorMs: 0.25, connectorCalls: 1 },
      9.125,
    );
    expect(serverTimingParts(withConnector)).toEqual({ dbMs: 4.5, connectorMs: 0.25, appMs: 9.13 });
    const without = serverTimingHeader({ dbMs: 1, dbStatements: 1, connectorMs: 0, connectorCalls: 0 }, 2);
    expect(serverTimingParts(without)).toEqual({ dbMs: 1, connectorMs: 0, appMs: 2 });
    expect(serverTimingParts('db;dur=1')).toBeNull();
    expect(serverTimingParts(undefined)).toBeNull();
  });

  it('takes nearest-rank percentiles and describes each part, the remainders included', () => {
    expect(percentile([5, 1, 3, 2, 4], 0.5)).toBe(3);
    expect(percentile([5, 1, 3, 2, 4], 0.99)).toBe(5);
    expect(percentile([], 0.5)).toBeNaN();
    const parts = [
      { totalMs: 10, appMs: 8, dbMs: 5, connectorMs: 1 },
      { totalMs: 20, appMs: 15, dbMs: 10, connectorMs: 1 },
    ];
    expect(describeParts(parts)).toBe(
      "client 10.0/20.0, app 8.0/15.0, db 5.0/10.0, connector 1.0/1.0, server's own 2.0/4.0, outside app 2.0/5.0",
    );
  });
});
