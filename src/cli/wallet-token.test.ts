import { createPublicKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decryptApplePayToken } from '../wallets/apple-pay.ts';
import { decryptGooglePayToken } from '../wallets/google-pay.ts';
import { sandboxWalletKeys } from '../wallets/sandbox-keys.ts';
import { walletTokenCommand } from './wallet-token.ts';

async function run(args: string[]) {
  let out = '';
  const code = await walletTokenCommand(args, (text) => (out += text));
  return { code, token: JSON.parse(out) };
}

describe('happy', () => {
  it('svc wallet-token apple prints an EC_v1 token that the sandbox keys verify and decrypt', async () => {
    const { code, token } = await run(['apple', '--card', '4111111111111111', '--expiry', '08/29', '--amount', '1999', '--currency', 'EUR']);
    expect(code).toBe(0);
    const keys = sandboxWalletKeys().apple;
    const card = decryptApplePayToken(token, { privateKey: keys.processingKey, merchantIdentifier: keys.merchantIdentifier }, { roots: [keys.root], now: new Date(), maxAgeSeconds: 60 });
    expect(card).toMatchObject({ kind: 'dpan', number: '4111111111111111', expirationDate: '08/29', amount: 1999, currencyCode: '978', eci: '07' });
  });

  it('svc wallet-token google --pan-only prints an ECv2 PAN_ONLY token', async () => {
    const { token } = await run(['google', '--card', '5555555555554444', '--pan-only']);
    const keys = sandboxWalletKeys().google;
    expect(decryptGooglePayToken(token, { privateKey: keys.processingKey, recipientId: keys.recipientId }, [keys.root], new Date())).toMatchObject({ kind: 'fpan', number: '5555555555554444', cryptogram: null });
    expect(createPublicKey(keys.processingKey).asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
  });
});

describe('errors', () => {
  it('refuses a missing wallet name, a bad card, a bad expiry, amount or currency', async () => {
    await expect(run([])).rejects.toThrow('apple|google');
    await expect(run(['apple', '--card', '12ab'])).rejects.toThrow('--card');
    await expect(run(['google', '--expiry', '13/30'])).rejects.toThrow('MM/YY');
    await expect(run(['apple', '--amount', '12.00'])).rejects.toThrow('--amount');
    await expect(run(['apple', '--currency', 'usd'])).rejects.toThrow('--currency');
    await expect(run(['apple', '--currency', 'ABC'])).rejects.toThrow('not an ISO 4217 currency');
  });
});
