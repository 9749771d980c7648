import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { base62ToUuid, uuidToBase62 } from './base62.ts';
import { uuidv7 } from './ids.ts';

const NIL = '00000000-0000-0000-0000-000000000000';
const MAX = 'ffffffff-ffff-ffff-ffff-ffffffffffff';

/** Any 128 bits written as a UUID, not only the versions fc.uuid() produces. */
const anyUuid = fc.uint8Array({ minLength: 16, maxLength: 16 }).map((bytes) => {
  const hex = Buffer.from(bytes).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
});

describe('happy', () => {
  it('round-trips every UUID', () => {
    fc.assert(
      fc.property(fc.oneof(fc.uuid(), anyUuid), (uuid) => {
        expect(base62ToUuid(uuidToBase62(uuid))).toBe(uuid);
      }),
    );
  });

  it('equals the 128-bit number written in base62 (BigInt reference)', () => {
    const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
    const reference = (uuid: string) => {
      let n = BigInt(`0x${uuid.replace(/-/g, '')}`);
      let out = '';
      do {
        out = ALPHABET[Number(n % 62n)] + out;
        n /= 62n;
      } while (n > 0n);
      return out;
    };
    fc.assert(
      fc.property(fc.oneof(fc.uuid(), anyUuid, fc.constant(NIL), fc.constant(MAX)), (uuid) => {
        expect(uuidToBase62(uuid)).toBe(reference(uuid));
      }),
    );
  });

  it('round-trips UUIDv7 ids', () => {
    for (let i = 0; i < 1000; i++) {
      const id = uuidv7();
      expect(base62ToUuid(uuidToBase62(id))).toBe(id);
    }
  });

  it('writes at most 22 base62 characters', () => {
    fc.assert(
      fc.property(anyUuid, (uuid) => {
        expect(uuidToBase62(uuid)).toMatch(/^[0-9A-Za-z]{1,22}$/);
      }),
    );
    expect(uuidToBase62(MAX)).toHaveLength(22);
  });

  it('maps distinct UUIDs to distinct strings', () => {
    fc.assert(fc.property(anyUuid, anyUuid, (a, b) => (a === b) === (uuidToBase62(a) === uuidToBase62(b))));
  });

  it('handles the nil and the max UUID', () => {
    expect(uuidToBase62(NIL)).toBe('0');
    expect(base62ToUuid('0')).toBe(NIL);
    expect(base62ToUuid(uuidToBase62(MAX))).toBe(MAX);
  });

  it('reads upper-case hex UUIDs as their lower-case form', () => {
    fc.assert(
      fc.property(fc.uuid(), (uuid) => {
        expect(base62ToUuid(uuidToBase62(uuid.toUpperCase()))).toBe(uuid);
      }),
    );
  });
});

describe('errors', () => {
  it('refuses characters outside the alphabet', () => {
    for (const bad of ['-', 'abc-def', 'é', ' 1', '1 ', '+'])
      expect(() => base62ToUuid(bad)).toThrow('not a base62 string');
  });

  it('refuses values above 128 bits', () => {
    expect(base62ToUuid(toBase62(2n ** 128n - 1n))).toBe(MAX);
    expect(() => base62ToUuid(toBase62(2n ** 128n))).toThrow('value too large for a UUID');
    expect(() => base62ToUuid('z'.repeat(22))).toThrow('value too large for a UUID');
  });
});

function toBase62(n: bigint): string {
  const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  let out = '';
  while (n > 0n) {
    out = alphabet[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out;
}
