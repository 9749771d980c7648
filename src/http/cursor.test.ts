import { createHmac, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppError } from '../errors/app-error.ts';
import { CursorCodec, type CursorPosition } from './cursor.ts';

const codec = new CursorCodec(randomBytes(32));
const LIST = 'merchant-accounts:';
const SCOPE = 'default';
const position: CursorPosition = { direction: 'next', key: ['2024-05-01T10:20:30.123Z', 'acct-1'] };

const positionArb: fc.Arbitrary<CursorPosition> = fc
  .record({
    direction: fc.constantFrom('next' as const, 'prev' as const),
    key: fc.array(
      fc.oneof(
        fc.string({ unit: 'grapheme' }),
        fc.integer(),
        fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
      ),
      { minLength: 1, maxLength: 3 },
    ),
    inclusive: fc.constantFrom(undefined, true),
  })
  .map(({ inclusive, ...rest }) => (inclusive ? { ...rest, inclusive } : rest));

function expectBadCursor(fn: () => unknown): void {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(AppError);
  const error = caught as AppError;
  expect(error.code).toBe('bad_request');
  expect(error.status).toBe(400);
  expect(error.details).toEqual([
    { location: 'query', pointer: '/cursor', message: expect.any(String), type: 'value_error' },
  ]);
}

describe('happy', () => {
  it('signs the list, the scope and the payload without ambiguity (a newline cannot move text between them)', () => {
    const cursor = codec.encode('a\nb', 'c', position);
    expectBadCursor(() => codec.decode('a', 'b\nc', cursor));
  });

  it('decodes what it encodes', () => {
    fc.assert(
      fc.property(positionArb, fc.string(), fc.string(), (pos, list, scope) => {
        expect(codec.decode(list, scope, codec.encode(list, scope, pos))).toEqual(pos);
      }),
    );
  });

  it('writes URL-safe text', () => {
    fc.assert(
      fc.property(positionArb, (pos) => {
        expect(codec.encode(LIST, SCOPE, pos)).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
      }),
    );
  });

  it('is stable: one position, one cursor, and another secret reads it the same way only with its own cursors', () => {
    expect(codec.encode(LIST, SCOPE, position)).toBe(codec.encode(LIST, SCOPE, position));
    const other = new CursorCodec(randomBytes(32));
    expect(other.decode(LIST, SCOPE, other.encode(LIST, SCOPE, position))).toEqual(position);
  });
});

describe('errors', () => {
  const cursor = codec.encode(LIST, SCOPE, position);

  it('refuses any single changed character', () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.';
    fc.assert(
      fc.property(fc.nat({ max: cursor.length - 1 }), fc.constantFrom(...alphabet), (i, ch) => {
        fc.pre(cursor[i] !== ch);
        expectBadCursor(() => codec.decode(LIST, SCOPE, cursor.slice(0, i) + ch + cursor.slice(i + 1)));
      }),
    );
  });

  it('refuses a truncated or extended cursor', () => {
    for (let end = 0; end < cursor.length; end++)
      expectBadCursor(() => codec.decode(LIST, SCOPE, cursor.slice(0, end)));
    expectBadCursor(() => codec.decode(LIST, SCOPE, `${cursor}A`));
    expectBadCursor(() => codec.decode(LIST, SCOPE, `${cursor}.A`));
  });

  it('refuses malformed input', () => {
    for (const bad of ['', '.', '..', 'abc', 'a.b', 'a.b.c', '%%%.%%%', '\u0000.\u0000', 'é.✓'])
      expectBadCursor(() => codec.decode(LIST, SCOPE, bad));
    fc.assert(fc.property(fc.string(), (bad) => expectBadCursor(() => codec.decode(LIST, SCOPE, bad))));
  });

  it('refuses a correctly signed payload that is not a position', () => {
    // Signed the way the codec signs (same secret), so only the shape check stands between it and the database.
    const secret = randomBytes(32);
    const own = new CursorCodec(secret);
    const sign = (text: string) => {
      const payload = Buffer.from(text).toString('base64url');
      return `${payload}.${createHmac('sha256', secret)
        .update(JSON.stringify([LIST, SCOPE, payload]))
        .digest('base64url')
        .slice(0, 22)}`;
    };
    expect(own.decode(LIST, SCOPE, sign('{"d":"p","k":["x",1]}'))).toEqual({ direction: 'prev', key: ['x', 1] });
    expect(own.decode(LIST, SCOPE, sign('{"d":"n","k":["x"],"i":1}'))).toEqual({
      direction: 'next',
      key: ['x'],
      inclusive: true,
    });
    for (const text of [
      '',
      'not json',
      'null',
      '7',
      '"n"',
      '[]',
      '{}',
      '{"d":"x","k":[]}',
      '{"d":"n"}',
      '{"d":"n","k":"a"}',
      '{"d":"n","k":[{}]}',
      '{"d":"n","k":[null]}',
      '{"d":"n","k":[true]}',
      '{"d":"n","k":[]}',
    ]) {
      expectBadCursor(() => own.decode(LIST, SCOPE, sign(text)));
    }
  });
});

describe('security', () => {
  const cursor = codec.encode(LIST, SCOPE, position);

  it('refuses a cursor of another list', () => {
    expectBadCursor(() => codec.decode('merchant-accounts:blue', SCOPE, cursor));
    expectBadCursor(() => codec.decode('payments:', SCOPE, cursor));
  });

  it('refuses a cursor of another merchant account', () => {
    expectBadCursor(() => codec.decode(LIST, 'acct-2', cursor));
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        fc.pre(a !== b);
        expectBadCursor(() => codec.decode(LIST, b, codec.encode(LIST, a, position)));
      }),
    );
  });

  it('refuses a cursor signed with another secret', () => {
    expectBadCursor(() => codec.decode(LIST, SCOPE, new CursorCodec(randomBytes(32)).encode(LIST, SCOPE, position)));
  });
});
