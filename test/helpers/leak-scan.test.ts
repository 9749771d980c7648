import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seal } from '../../src/vault/crypto.ts';
import { needlesOf, scan } from '../reliability/support/leak-scan.ts';
import { containsSecret } from './leak-scan.ts';

const CODES = ['737', '087', '0391', '1234'];

/** Ciphertexts and keyed digests as rows hold them: base64, base64url, hex and the vault's sealed form. */
const encodings = (bytes: Buffer) => [
  bytes.toString('base64'),
  bytes.toString('base64url'),
  bytes.toString('hex'),
  seal(randomBytes(32), bytes, 'aad'),
];

/** The ways a row, a response or a log line shows a value: PostgreSQL's row text, JSON, a log message. */
const framings = (value: string) => [
  `(default,018f0000-0000-7000-8000-000000000000,${value},2026-01-01 10:07:37.737+00)`,
  JSON.stringify({ ciphertext: value, created_at: '2026-01-01T10:07:37.737Z' }),
  `stored ${value}`,
];

/**
 * A code planted at `at` in encoded text, over characters of its alphabet only (not padding or the
 * sealed form's dots): what chance produces about once in 64³ positions for three digits. Null
 * where that does not fit.
 */
const plant = (text: string, code: string, at: number) => {
  const i = Math.min(at, Math.max(0, text.length - code.length));
  return /^[A-Za-z0-9+/_-]+$/.test(text.slice(i, i + code.length)) && i + code.length <= text.length
    ? text.slice(0, i) + code + text.slice(i + code.length)
    : null;
};

describe('security', () => {
  it('finds no security code in ciphertext, digests or timestamps, wherever chance puts its digits (property)', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 4, maxLength: 48 }),
        fc.constantFrom(...CODES),
        fc.nat(80),
        (bytes, code, at) => {
          for (const encoded of encodings(Buffer.from(bytes)).map((text) => plant(text, code, at))) {
            for (const text of encoded === null ? [] : framings(encoded)) {
              expect(scan('row', text, needlesOf([], [code])), text).toEqual([]);
              expect(containsSecret(text, code), text).toBe(false);
            }
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('still finds a security code stored, answered or logged in clear', () => {
    for (const code of CODES) {
      const leaks = [
        `(default,018f0000-0000-7000-8000-000000000000,${code},2026-01-01 10:07:37+00)`,
        JSON.stringify({ security_code: code }),
        `{"cvv":${code}}`,
        `authorizing with ${code} now`,
        `"${code}"`,
        `code=${code}&x=1`,
      ];
      for (const text of leaks) {
        expect(scan('row', text, needlesOf([], [code])), text).toHaveLength(1);
        expect(containsSecret(text, code), text).toBe(true);
      }
    }
  });

  it('finds a long secret anywhere, even inside other text', () => {
    expect(containsSecret('xx4111111111111111yy', '4111111111111111')).toBe(true);
    expect(containsSecret('{"number":"411111111111111"}', '4111111111111111')).toBe(false);
  });
});
