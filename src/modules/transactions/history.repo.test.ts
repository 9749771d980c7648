import { describe, expect, it } from 'vitest';
import { historyRows } from './history.repo.ts';

const at = new Date('2026-01-01T00:00:00.000Z');
const e = (id: string, transaction_id: string, created_at: Date | undefined, context?: string) => ({
  merchant_account_id: 'm',
  id,
  transaction_id,
  name: `n-${id}`,
  ...(context === undefined ? {} : { context }),
  ...(created_at === undefined ? {} : { created_at }),
});

describe('happy', () => {
  it('puts the events of one transaction at one time in one row, the first in its columns', () => {
    const rows = historyRows([
      e('1', 't1', at, '{"a":1}'),
      e('2', 't2', at, '{}'),
      e('3', 't1', at),
      e('4', 't1', new Date(at.getTime() + 1)),
      e('5', 't1', undefined),
      e('6', 't1', undefined, '{"b":[1,"x",null]}'),
    ]);
    expect(rows).toEqual([
      { ...e('1', 't1', at, '{"a":1}'), more: '[{"id":"3","name":"n-3","context":{}}]' },
      { ...e('2', 't2', at, '{}'), more: null },
      { ...e('4', 't1', new Date(at.getTime() + 1)), more: null },
      { ...e('5', 't1', undefined), more: '[{"id":"6","name":"n-6","context":{"b":[1,"x",null]}}]' },
    ]);
    for (const row of rows) if (row.more) expect(() => JSON.parse(row.more as string)).not.toThrow();
  });
});
