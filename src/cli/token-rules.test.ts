import { describe, expect, it } from 'vitest';
import { checkTokenRequest } from './token-rules.ts';

const DAY = 24 * 3600;

describe('svc token refuses what the server refuses', () => {
  it('accepts the defaults, a known scope and an embed claim with the embed scope', () => {
    expect(checkTokenRequest({ lifetime: undefined, scopes: undefined, embed: undefined }, DAY)).toEqual({
      lifetimeSeconds: 3600,
      scopes: ['*.read', '*.write'],
      embed: null,
    });
    expect(
      checkTokenRequest({ lifetime: String(DAY), scopes: ['transactions.write'], embed: undefined }, DAY)
        .lifetimeSeconds,
    ).toBe(DAY);
    expect(checkTokenRequest({ lifetime: '60', scopes: ['embed'], embed: '{"amount":1299}' }, DAY).embed).toEqual({
      amount: 1299,
    });
  });

  it.each([
    [
      { lifetime: '200000' },
      '--lifetime 200000 is longer than the server accepts (86400 s, 24 h: TOKEN_MAX_LIFETIME_SECONDS); the server would answer 401 "lifetime exceeds 24 h"',
    ],
    [{ lifetime: '0' }, '--lifetime must be a positive whole number of seconds, got "0"'],
    [{ lifetime: '1.5' }, '--lifetime must be a positive whole number of seconds, got "1.5"'],
    [
      { scopes: ['transactions.write', 'transaction.read'] },
      'unknown scope "transaction.read": a scope is *.read, *.write, embed or <resource>.read / <resource>.write',
    ],
    [{ scopes: ['embed'], embed: '[1]' }, '--embed must be a JSON object'],
    [{ scopes: ['embed'], embed: '{oops' }, '--embed must be a JSON object'],
    [{ embed: '{"amount":1}' }, '--embed goes with --scope embed'],
  ])('refuses %j', (given, message) => {
    expect(() =>
      checkTokenRequest({ lifetime: undefined, scopes: undefined, embed: undefined, ...given }, DAY),
    ).toThrow(message);
  });
});
