import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { arrayLiteral } from './array-literal.ts';

// The driver's own conversion of a JavaScript array: where arrayLiteral answers, it must say the same.
const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils.js') as { prepareValue: (value: unknown) => string };

describe('arrayLiteral', () => {
  it('writes strings, numbers, booleans, bytes and nulls exactly as the driver does', () => {
    const values = ['plain', 'a "quoted" word', 'back\\slash', 'comma, {brace}', "it's", '', 'NULL', null, 42, -1.5, 10n, true, false, Buffer.from([0, 1, 255])];
    expect(arrayLiteral(values, 'text')).toBe(prepareValue(values));
    expect(arrayLiteral(values, 'text')).toBe('{"plain","a \\"quoted\\" word","back\\\\slash","comma, {brace}","it\'s","","NULL",NULL,"42","-1.5","10","true","false",\\\\x0001ff}');
  });

  it('agrees with the driver on any strings', () => {
    fc.assert(fc.property(fc.array(fc.option(fc.string({ unit: 'binary' }))), (values) => arrayLiteral(values, 'text') === prepareValue(values)));
  });

  it('writes JSON objects as their text, and JSON text as it is, as the driver does', () => {
    const values = [{ q: '"\\', list: [1, 'two'] }, '{"a":1}', null];
    expect(arrayLiteral(values, 'jsonb')).toBe(prepareValue(values));
  });

  it('writes zoned dates as ISO instants', () => {
    expect(arrayLiteral([new Date('2026-11-27T01:02:03.456Z')], 'timestamp with time zone')).toBe('{"2026-11-27T01:02:03.456Z"}');
  });

  it('leaves to the driver what it cannot write exactly', () => {
    expect(arrayLiteral([new Date()], 'timestamp without time zone')).toBeNull();
    expect(arrayLiteral([new Date(Number.NaN)], 'timestamp with time zone')).toBeNull();
    expect(arrayLiteral([{ a: 1 }], 'text')).toBeNull();
    expect(arrayLiteral([[1, 2]], 'jsonb')).toBeNull();
    expect(arrayLiteral([undefined], 'text')).toBeNull();
  });
});
