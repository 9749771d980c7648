import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { TransactionRow } from '../../db/schema-transactions.ts';
import { mispredicted, predictRow } from './predicted-row.ts';

const at = new Date('2026-11-24T10:00:00.000Z');
const row = {
  id: 't1',
  status: 'processing',
  amount: 1000,
  updated_at: new Date('2026-11-24T09:59:59.000Z'),
  additional_identifiers: {},
  metadata: { b: '2', a: '1' },
  error_code: null,
} as unknown as TransactionRow;

describe('predictRow', () => {
  it('applies values, parses JSON text of JSON columns, and sets updated_at', () => {
    const predicted = predictRow(
      row,
      { status: 'authorization_succeeded', additional_identifiers: JSON.stringify({ psp: 'x' }), error_code: null },
      at,
    );
    expect(predicted.row).toMatchObject({
      status: 'authorization_succeeded',
      additional_identifiers: { psp: 'x' },
      error_code: null,
      updated_at: at,
      amount: 1000,
      metadata: { b: '2', a: '1' },
    });
    expect(predicted.set.sort()).toEqual(['additional_identifiers', 'error_code', 'status', 'updated_at']);
    expect(predicted.computed).toEqual([]);
  });

  it('leaves a column set by an SQL expression to the database', () => {
    const predicted = predictRow(
      row,
      { status: 'authorization_succeeded', capture_limit: sql<number>`1000 + 1` as never },
      at,
    );
    expect(predicted.computed).toEqual(['capture_limit']);
    expect(predicted.set).not.toContain('capture_limit');
  });
});

describe('mispredicted', () => {
  it('is empty when the stored row has the predicted values, whatever the key order of JSON and the Date objects', () => {
    const predicted = predictRow(
      row,
      { status: 'authorization_succeeded', additional_identifiers: JSON.stringify({ a: '1', b: '2' }) },
      at,
    );
    const stored = {
      ...row,
      status: 'authorization_succeeded',
      additional_identifiers: { b: '2', a: '1' },
      updated_at: new Date(at.getTime()),
    } as unknown as TransactionRow;
    expect(mispredicted(predicted, stored)).toEqual([]);
  });

  it('names the set columns that differ', () => {
    const predicted = predictRow(row, { status: 'authorization_succeeded', error_code: null }, at);
    const stored = {
      ...row,
      status: 'authorization_declined',
      error_code: null,
      updated_at: new Date(at.getTime() + 1),
    } as unknown as TransactionRow;
    expect(mispredicted(predicted, stored).sort()).toEqual(['status', 'updated_at']);
  });
});
