import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TransactionSessionTokens } from './session-token.ts';

const tokens = new TransactionSessionTokens(randomBytes(32));
const TXN = '0190a000-0000-7000-8000-000000000001';
const OTHER = '0190a000-0000-7000-8000-000000000002';
const at = new Date('2031-05-04T10:00:00.123Z');

describe('happy', () => {
  it('reads back the merchant account and expiry of a token it issued, for its transaction', () => {
    const token = tokens.issue('acme', TXN, at);
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.\d+\.[A-Za-z0-9_-]{43}$/);
    expect(tokens.read(token, TXN)).toEqual({ merchantAccountId: 'acme', expiresAt: at });
    expect(tokens.issue('acme', TXN, at)).toBe(token);
  });

  it('round-trips any merchant account id', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 255 }), (merchant) => {
        expect(tokens.read(tokens.issue(merchant, TXN, at), TXN)?.merchantAccountId).toBe(merchant);
      }),
    );
  });
});

describe('security', () => {
  it('refuses a token for another transaction, with an edited account or expiry, or under another key', () => {
    const token = tokens.issue('acme', TXN, at);
    const [account, expires, mac] = token.split('.');
    expect(tokens.read(token, OTHER)).toBeNull();
    expect(tokens.read(`${Buffer.from('other').toString('base64url')}.${expires}.${mac}`, TXN)).toBeNull();
    expect(tokens.read(`${account}.${Number(expires) + 3_600_000}.${mac}`, TXN)).toBeNull();
    expect(new TransactionSessionTokens(randomBytes(32)).read(token, TXN)).toBeNull();
  });

  it('accepts one spelling of a MAC only (the spare bits of its last character are not ignored)', () => {
    const token = tokens.issue('acme', TXN, at);
    const last = token.at(-1)!;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const index = alphabet.indexOf(last);
    const sameBytes = alphabet[index ^ 1]!;
    expect(Buffer.from(token.split('.')[2]!.slice(0, -1) + sameBytes, 'base64url')).toEqual(
      Buffer.from(token.split('.')[2]!, 'base64url'),
    );
    expect(tokens.read(token.slice(0, -1) + sameBytes, TXN)).toBeNull();
  });

  it('refuses malformed tokens without throwing', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (junk) => {
        expect(tokens.read(junk, TXN)).toBeNull();
      }),
    );
    const [account, expires, mac] = tokens.issue('acme', TXN, at).split('.');
    for (const bad of [
      `${account}.${expires}`,
      `${account}.${expires}.${mac}.x`,
      `${account}.${expires}.${mac!.slice(1)}`,
      `${account}.-1.${mac}`,
      `${account}.1e9.${mac}`,
      `.${expires}.${mac}`,
    ]) {
      expect(tokens.read(bad, TXN), bad).toBeNull();
    }
  });
});
