import { describe, expect, it } from 'vitest';
import { buildRow, shapeFor } from './row-shapes.ts';

const types = {
  getTypeParser: (oid: number) => (oid === 20 ? Number : oid === 16 ? (v: string) => v === 't' : (v: string) => v),
};
const field = (name: string, dataTypeID = 25, format = 'text') => ({ name, dataTypeID, format });

describe('row shapes', () => {
  it("builds rows column by column with each type's parser, null for NULL", () => {
    const shape = shapeFor(types, 's1', [field('id'), field('amount', 20), field('ok', 16), field('note')])!;
    expect(buildRow(shape, ['a', '12', 't', null])).toEqual({ id: 'a', amount: 12, ok: true, note: null });
    expect(Object.keys(buildRow(shape, ['a', '12', 'f', 'n']))).toEqual(['id', 'amount', 'ok', 'note']);
  });

  it("keeps a statement's shape while its description is the same, and rebuilds it when it changes", () => {
    const first = shapeFor(types, 's2', [field('id'), field('amount', 20)]);
    expect(shapeFor(types, 's2', [field('id'), field('amount', 20)])).toBe(first);
    const retyped = shapeFor(types, 's2', [field('id'), field('amount', 25)])!;
    expect(retyped).not.toBe(first);
    expect(buildRow(retyped, ['a', '12'])).toEqual({ id: 'a', amount: '12' });
    const wider = shapeFor(types, 's2', [field('id'), field('amount', 25), field('extra')])!;
    expect(buildRow(wider, ['a', '1', 'x'])).toEqual({ id: 'a', amount: '1', extra: 'x' });
  });

  it("each type source (a connection's overrides) has its own shapes", () => {
    const other = { getTypeParser: () => (v: string) => `other:${v}` };
    shapeFor(types, 's3', [field('amount', 20)]);
    expect(buildRow(shapeFor(other, 's3', [field('amount', 20)])!, ['5'])).toEqual({ amount: 'other:5' });
  });

  it('a later duplicate name wins, as in pg', () => {
    expect(buildRow(shapeFor(types, 's4', [field('id'), field('id', 20)])!, ['a', '7'])).toEqual({ id: 7 });
  });

  it('leaves binary columns and a __proto__ column to pg', () => {
    expect(shapeFor(types, 's5', [field('id'), field('blob', 17, 'binary')])).toBeNull();
    expect(shapeFor(types, 's6', [field('__proto__')])).toBeNull();
  });
});
