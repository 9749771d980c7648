import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isUuid, uuidv5, uuidv7, uuidv7Floor } from './ids.ts';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const timestampOf = (id: string) => parseInt(id.replace(/-/g, '').slice(0, 12), 16);

describe('happy', () => {
  // First: later tests may move the generator's clock a few milliseconds ahead (counter overflow).
  it('starts with the current Unix time in milliseconds', () => {
    const before = Date.now();
    const id = uuidv7();
    const after = Date.now();
    expect(timestampOf(id)).toBeGreaterThanOrEqual(before);
    expect(timestampOf(id)).toBeLessThanOrEqual(after);
  });

  it('has the RFC 9562 layout: version 7, variant 10', () => {
    for (let i = 0; i < 2000; i++) {
      const id = uuidv7();
      expect(id).toMatch(V7);
      expect(isUuid(id)).toBe(true);
      const bytes = Buffer.from(id.replace(/-/g, ''), 'hex');
      expect(bytes[6]! >> 4).toBe(7);
      expect(bytes[8]! >> 6).toBe(0b10);
    }
  });

  it('is strictly increasing, also within one millisecond', () => {
    const ids = Array.from({ length: 20_000 }, () => uuidv7());
    for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!).toBe(true);
    const perMs = new Map<number, number>();
    for (const id of ids) perMs.set(timestampOf(id), (perMs.get(timestampOf(id)) ?? 0) + 1);
    expect(Math.max(...perMs.values())).toBeGreaterThan(1);
  });

  it('stays increasing when the 12-bit counter overflows or the clock goes back', () => {
    const now = Date.now();
    const ids = Array.from({ length: 10_000 }, () => uuidv7(now));
    ids.push(uuidv7(now - 60_000), uuidv7(now - 60_000));
    for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!).toBe(true);
    for (const id of ids) expect(id).toMatch(V7);
    // More than 4096 ids in one millisecond borrow the next milliseconds, never a past one.
    expect(timestampOf(ids[0]!)).toBeGreaterThanOrEqual(now);
    expect(timestampOf(ids[ids.length - 1]!) - now).toBeLessThanOrEqual(5);
  });

  it('writes the given time for any time after the last one used', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), (step) => {
        const at = timestampOf(uuidv7()) + step;
        expect(timestampOf(uuidv7(at))).toBe(at);
      }),
      { numRuns: 50 },
    );
  });
});

describe('errors', () => {
  it('isUuid refuses what is not a UUID', () => {
    for (const bad of [
      '',
      'abc',
      '0000000000000000000000000000000',
      `${uuidv7()}0`,
      uuidv7().replace(/-/g, ''),
      'g0000000-0000-7000-8000-000000000000',
    ]) {
      expect(isUuid(bad)).toBe(false);
    }
    fc.assert(
      fc.property(fc.uuid(), (uuid) => {
        expect(isUuid(uuid)).toBe(true);
      }),
    );
  });
});

describe('uuidv5', () => {
  it('gives the RFC 9562 example id, the same on every call', () => {
    expect(uuidv5('www.example.com', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).toBe(
      '2ed6657d-e927-568b-95e1-2665a8aea6a2',
    );
    expect(uuidv5('administrator', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).toBe(
      uuidv5('administrator', '6ba7b810-9dad-11d1-80b4-00c04fd430c8'),
    );
  });
});

describe('uuidv7Floor', () => {
  /** A UUIDv7 of millisecond `ms` with the given random bits, built by hand (RFC 9562 layout). */
  const v7 = (ms: number, random: Uint8Array) => {
    const bytes = Buffer.from(random);
    bytes.writeUIntBE(ms, 0, 6);
    bytes[6] = 0x70 | (bytes[6]! & 0x0f);
    bytes[8] = 0x80 | (bytes[8]! & 0x3f);
    const hex = bytes.toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  };

  it('sorts at or below every UUIDv7 of its millisecond and later, above every earlier one', () => {
    expect(uuidv7Floor(0x0123456789ab)).toBe('01234567-89ab-7000-8000-000000000000');
    expect(isUuid(uuidv7Floor(Date.now()))).toBe(true);
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 48 - 2 }),
        fc.integer({ min: -1, max: 1 }),
        fc.uint8Array({ minLength: 16, maxLength: 16 }),
        (ms, offset, random) => {
          // Lower-case hex compares as the bytes do, and so as PostgreSQL compares uuids.
          const id = v7(ms + offset, random);
          expect(id >= uuidv7Floor(ms)).toBe(offset >= 0);
        },
      ),
    );
  });
});
