import { describe, expect, it } from 'vitest';
import { pgbenchTps } from '../../bench/outside.ts';
import { parseWaldumpLine, simulatorOnlyTransactions } from '../../bench/wal-breakdown.ts';

describe('the outside benchmarks read what pgbench and pg_waldump print', () => {
  it("takes pgbench's rate without the connection time", () => {
    const out = [
      'number of transactions actually processed: 48213',
      'latency average = 6.631 ms',
      'initial connection time = 21.337 ms',
      'tps = 4825.517262 (without initial connection time)',
    ].join('\n');
    expect(pgbenchTps(out)).toBeCloseTo(4825.517262);
    expect(() => pgbenchTps('pgbench: error: connection failed')).toThrow(/no tps line/);
  });

  it("puts a WAL record on its first block's relation, and a record without a block on its resource manager", () => {
    expect(
      parseWaldumpLine(
        'rmgr: Heap        len (rec/tot):     54/  1112, tx:     123456, lsn: 0/1D13F500, prev 0/1D13F4C8, desc: INSERT off 5 flags 0x00, blkref #0: rel 1663/16384/24576 blk 12',
      ),
    ).toEqual({ rmgr: 'Heap', total: 1112, tx: 123456, rel: '24576', fpi: false, desc: 'INSERT' });
    expect(
      parseWaldumpLine(
        'rmgr: Btree       len (rec/tot):     53/  8245, tx:     123457, lsn: 0/1D13F600, prev 0/1D13F500, desc: INSERT_LEAF off 2, blkref #0: rel 1663/16384/24580 blk 3 FPW',
      ),
    ).toMatchObject({ rel: '24580', fpi: true, total: 8245 });
    expect(
      parseWaldumpLine(
        'rmgr: Transaction len (rec/tot):     34/    34, tx:     123456, lsn: 0/1D13F700, prev 0/1D13F600, desc: COMMIT 2026-12-07 02:15:41.453 UTC',
      ),
    ).toEqual({ rmgr: 'Transaction', total: 34, tx: 123456, rel: null, fpi: false, desc: 'COMMIT' });
    expect(parseWaldumpLine('pg_waldump: error: could not find file')).toBeNull();
  });

  it("counts a transaction as the simulator's only when every relation it wrote is the simulator's", () => {
    const records = [
      { tx: 10, rel: 'simulator_calls' },
      { tx: 10, rel: 'simulator_calls_pkey' },
      { tx: 10, rel: null },
      { tx: 11, rel: 'transactions' },
      { tx: 11, rel: 'simulator_calls' },
      { tx: 12, rel: 'transactions' },
      { tx: 0, rel: 'simulator_calls' },
    ];
    expect([...simulatorOnlyTransactions(records)]).toEqual([10]);
  });
});
