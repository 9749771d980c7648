import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { arrayLiteralLength, groupMembers } from '../../bench/driver-trace.ts';
import { arrayLiteral, groupedText, jsonArrays, jsonRows, writeShape } from '../../src/db/group-commit-sql.ts';

/**
 * How the driver benchmark counts a recorded grouped statement's members (bench/driver-trace.ts):
 * from the first parameter the statement unnests, in each form the server sends it.
 */
describe('bench/driver-trace.ts: members of a grouped statement', () => {
  it('counts the elements of any array literal the server writes', () => {
    fc.assert(
      fc.property(fc.array(fc.option(fc.string({ unit: 'binary' }), { nil: null }), { maxLength: 40 }), (values) => {
        expect(arrayLiteralLength(arrayLiteral(values, 'text')!)).toBe(values.length);
      }),
      { numRuns: 2000 },
    );
  });

  it('reads the members of a grouped insert (arrays) and of a grouped update led by JSON values', () => {
    const insert = writeShape('insert into "t" ("a", "b") values ($1, $2)')!;
    const values = [arrayLiteral(['1', '2', '3'], 'int4'), arrayLiteral(['x,"y"', 'z', null], 'text')];
    expect(groupMembers(groupedText(insert, 0, ['int4', 'text']), values)).toBe(3);
    // The pg fallback: the array itself.
    expect(
      groupMembers(groupedText(insert, 0, ['int4', 'text']), [
        [1, 2],
        ['a', 'b'],
      ]),
    ).toBe(2);

    const update = writeShape('update "t" set "d" = $1, "n" = $2 where "id" = $3')!;
    const types = ['jsonb', 'int4', 'text'];
    const text = groupedText(update, 1, types, jsonArrays(update, types));
    expect(text).toContain('jsonb_array_elements(case when');
    expect(
      groupMembers(text, [
        'merchant',
        jsonRows(['{"a":[1,2]}', null, '3', '4']),
        arrayLiteral([1, 2, 3, 4], 'int4'),
        arrayLiteral(['a', 'b', 'c', 'd'], 'text'),
        4,
      ]),
    ).toBe(4);
  });

  it('finds no members in a statement that unnests nothing', () => {
    expect(groupMembers('select * from "t" where "id" = any($1::uuid[])', ['{"a"}'])).toBeNull();
  });
});
