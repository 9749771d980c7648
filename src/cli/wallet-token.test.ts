import { createPublicKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decryptApplePayToken } from '../wallets/apple-pay.ts';
import { decryptGooglePayToken } from '../wallets/google-pay.ts';
import { decryptPazeToken } from '../wallets/paze.ts';
import { sandboxPazeKeys, sandboxWalletKeys } from '../wallets/sandbox-keys.ts';
import { walletTokenCommand } from './wallet-token.ts';

async function run(args: string[]) {
  let out = '';
  const code = await walletTokenCommand(args, (text) => (out += text));
  return { code, token: JSON.parse(out) };
}

describe('happy', () => {
  it('svc wallet-token apple prints an EC_v1 token that the sandbox keys verify and decrypt', async () => {
    const { code, token } = await run([
      'apple',
      '--card',
      '4111111111111111',
      '--expiry',
      '08/29',
      '--amount',
      '1999',
      '--currency',
      'EUR',
    ]);
    expect(code).toBe(0);
    const keys = sandboxWalletKeys().apple;
    const card = decryptApplePayToken(
      token,
      { privateKey: keys.processingKey, merchantIdentifier: keys.merchantIdentifier },
      { roots: [keys.root], now: new Date(), maxAgeSeconds: 60 },
    );
    expect(card).toMatchObject({
      kind: 'dpan',
      number: '4111111111111111',
      expirationDate: '08/29',
      amount: 1999,
      currencyCode: '978',
      eci: '07',
    });
  });

  it('svc wallet-token google --pan-only prints an ECv2 PAN_ONLY token', async () => {
    const { token } = await run(['google', '--card', '5555555555554444', '--pan-only']);
    const keys = sandboxWalletKeys().google;
    expect(
      decryptGooglePayToken(
        token,
        { privateKey: keys.processingKey, recipientId: keys.recipientId },
        [keys.root],
        new Date(),
      ),
    ).toMatchObject({ kind: 'fpan', number: '5555555555554444', cryptogram: null });
    expect(createPublicKey(keys.processingKey).asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
  });

  it('svc wallet-token paze prints a completeResponse that the sandbox Paze keys verify and decrypt', async () => {
    let out = '';
    expect(
      await walletTokenCommand(
        ['paze', '--card', '5204245250001488', '--expiry', '11/31', '--amount', '1250', '--profile-id', 'PROFILE-1'],
        (text) => (out += text),
      ),
    ).toBe(0);
    const keys = sandboxPazeKeys();
    const card = await decryptPazeToken(
      out.trim(),
      { privateKey: keys.processingKey, profileId: 'PROFILE-1' },
      { keys: [{ kid: keys.signingKeyId, key: createPublicKey(keys.signingKey) }], now: new Date() },
    );
    expect(card).toMatchObject({
      kind: 'dpan',
      number: '5204245250001488',
      expirationDate: '11/31',
      amount: 1250,
      scheme: 'mastercard',
      eci: '02',
      tokenId: expect.any(String),
    });
    expect(card.cryptogram).toMatch(/^[A-Za-z0-9+/]{27}=$/);
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
    await expect(run(['paze', '--amount', '12.50'])).rejects.toThrow('--amount');
  });
});
