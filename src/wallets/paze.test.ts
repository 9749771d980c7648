import { generateKeyPairSync } from 'node:crypto';
import { CompactSign } from 'jose';
import { describe, expect, it } from 'vitest';
import { decryptPazeToken, verifyPazeCheckoutToken } from './paze.ts';
import { makePazeCompleteResponse, type CompleteResponseInput } from './paze-complete-response.ts';
import { WalletTokenError } from './token-error.ts';

/** Keys of this test's own: a "Paze" signing key, another signer nobody trusts, the wallet's key and another wallet's. */
const rsa = () => generateKeyPairSync('rsa', { modulusLength: 2048 });
const [paze, stranger, wallet, otherWallet] = [rsa(), rsa(), rsa(), rsa()];
const now = new Date();
const trust = { keys: [{ kid: 'paze-1', key: paze.publicKey }], now };
const recipient = { privateKey: wallet.privateKey, profileId: null };
const CRYPTOGRAM = 'AgAAAAAAAIR8CQrXcIhbQAAAAAA=';

const data = (overrides: Record<string, unknown> = {}) => ({
  clientId: 'CLIENT1',
  profileId: 'PROFILE1',
  token: {
    paymentToken: '4895370012003478',
    tokenExpirationMonth: '05',
    tokenExpirationYear: '2032',
    paymentAccountReference: 'V0010013021015351808388794695',
  },
  paymentCardNetwork: 'VISA',
  dynamicData: [
    {
      dynamicDataValue: CRYPTOGRAM,
      dynamicDataType: 'CARD_APPLICATION_CRYPTOGRAM_SHORT_FORM',
      dynamicDataExpiration: String(Math.floor(now.getTime() / 1000) + 900),
    },
  ],
  billingAddress: { name: 'Pat Doe', line1: '1 Main St', city: 'Tampa', state: 'FL', zip: '33601', countryCode: 'US' },
  consumer: { firstName: 'Pat', lastName: 'Doe', emailAddress: 'pat@example.com' },
  eci: '07',
  transactionValue: { transactionAmount: '12.34', transactionCurrency: 'USD' },
  ...overrides,
});

const make = (overrides: Partial<CompleteResponseInput> = {}) =>
  makePazeCompleteResponse({
    data: data(),
    recipientPublicKey: wallet.publicKey,
    signer: { key: paze.privateKey, kid: 'paze-1' },
    sessionId: 'session-1',
    issuedAt: now,
    lifetimeSeconds: 3600,
    issuer: 'test-paze',
    payloadId: 'payload-1',
    ...overrides,
  });

const sign = (payload: Record<string, unknown>, header: Record<string, unknown> = {}, key = paze.privateKey) =>
  new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
    .setProtectedHeader({ alg: 'RS256', kid: 'paze-1', exp: Math.floor(now.getTime() / 1000) + 600, ...header })
    .sign(key);

async function refusal(run: () => Promise<unknown>): Promise<WalletTokenError> {
  try {
    await run();
  } catch (error) {
    expect(error).toBeInstanceOf(WalletTokenError);
    return error as WalletTokenError;
  }
  throw new Error('the token was accepted');
}

describe('happy', () => {
  it('verifies JWS(JWE(JWS)) and yields the network token, cryptogram, ECI, scheme, amount, payloadId and the JWS expiry', async () => {
    const { completeResponse } = await make();
    expect(await decryptPazeToken(completeResponse, recipient, trust)).toEqual({
      kind: 'dpan',
      number: '4895370012003478',
      expirationDate: '05/32',
      cryptogram: CRYPTOGRAM,
      eci: '07',
      amount: 1234,
      scheme: 'visa',
      tokenId: 'payload-1',
      usableUntil: new Date(Math.floor(now.getTime() / 1000) * 1000 + 3600_000),
    });
  });

  it('accepts an unsigned inner JSON payload, an ISO cryptogram expiry, a matching profile and a key without kid', async () => {
    const { completeResponse } = await make({
      plainInner: true,
      data: data({
        dynamicData: [
          { dynamicDataValue: CRYPTOGRAM, dynamicDataExpiration: new Date(now.getTime() + 60_000).toISOString() },
        ],
      }),
    });
    const card = await decryptPazeToken(
      completeResponse,
      { ...recipient, profileId: 'PROFILE1' },
      { ...trust, keys: [{ kid: null, key: paze.publicKey }] },
    );
    expect(card).toMatchObject({ number: '4895370012003478', cryptogram: CRYPTOGRAM });
  });

  it('verifies a checkout_token of the same session', async () => {
    await expect(
      verifyPazeCheckoutToken(await sign({ sessionId: 'session-1' }), trust, 'session-1'),
    ).resolves.toBeUndefined();
  });
});

describe('errors', () => {
  it('refuses a completeResponse whose outer JWS was altered (bad signature)', async () => {
    const { completeResponse } = await make();
    const [h, p, s] = completeResponse.split('.');
    const altered = JSON.parse(Buffer.from(p!, 'base64url').toString());
    altered.sessionId = 'session-2';
    expect(
      await refusal(() =>
        decryptPazeToken(`${h}.${Buffer.from(JSON.stringify(altered)).toString('base64url')}.${s}`, recipient, trust),
      ),
    ).toMatchObject({
      reason: 'signature',
      message: expect.stringContaining('not signed by a trusted Paze signing key'),
    });
  });

  it('refuses a completeResponse signed by an untrusted key', async () => {
    const { completeResponse } = await make({ signer: { key: stranger.privateKey, kid: 'paze-1' } });
    expect((await refusal(() => decryptPazeToken(completeResponse, recipient, trust))).reason).toBe('signature');
  });

  it('refuses a securedPayload encrypted for another key (wrong decryption key)', async () => {
    const { completeResponse } = await make({ recipientPublicKey: otherWallet.publicKey });
    expect(await refusal(() => decryptPazeToken(completeResponse, recipient, trust))).toMatchObject({
      reason: 'wrong_key',
      message: expect.stringContaining('encrypted for another key'),
    });
  });

  it('refuses a tampered JWE, even re-signed by Paze', async () => {
    const { securedPayload } = await make();
    const parts = securedPayload.split('.');
    const cipher = Buffer.from(parts[3]!, 'base64url');
    cipher[0]! ^= 1;
    parts[3] = cipher.toString('base64url');
    const token = await sign({ payloadId: 'p', securedPayload: parts.join('.') });
    expect(await refusal(() => decryptPazeToken(token, recipient, trust))).toMatchObject({
      reason: 'decryption',
      message: expect.stringContaining('tampered'),
    });
  });

  it('refuses an expired JWS and one issued in the future', async () => {
    const expired = await make({ issuedAt: new Date(now.getTime() - 7200_000) });
    expect(await refusal(() => decryptPazeToken(expired.completeResponse, recipient, trust))).toMatchObject({
      reason: 'expired',
      message: expect.stringContaining('expired at'),
    });
    const future = await make({ issuedAt: new Date(now.getTime() + 3600_000) });
    expect(await refusal(() => decryptPazeToken(future.completeResponse, recipient, trust))).toMatchObject({
      reason: 'expired',
      message: expect.stringContaining('in the future'),
    });
  });

  it('refuses an expired cryptogram', async () => {
    const { completeResponse } = await make({
      data: data({
        dynamicData: [
          { dynamicDataValue: CRYPTOGRAM, dynamicDataExpiration: String(Math.floor(now.getTime() / 1000) - 1) },
        ],
      }),
    });
    expect(await refusal(() => decryptPazeToken(completeResponse, recipient, trust))).toMatchObject({
      reason: 'expired',
      message: expect.stringContaining('cryptogram expired'),
    });
  });

  it('refuses an inner payload signed by an untrusted key', async () => {
    const { completeResponse } = await make();
    const inner = await make({ signer: { key: stranger.privateKey, kid: 'paze-1' } });
    const outer = await sign({ securedPayload: inner.securedPayload });
    expect(completeResponse).not.toBe(outer);
    expect(await refusal(() => decryptPazeToken(outer, recipient, trust))).toMatchObject({
      reason: 'signature',
      message: expect.stringContaining('decrypted Paze payload'),
    });
  });

  it('refuses malformed tokens, other algorithms, a missing exp and another profile, naming what is wrong', async () => {
    expect((await refusal(() => decryptPazeToken('not-a-jws', recipient, trust))).reason).toBe('malformed');
    const hs = await new CompactSign(new TextEncoder().encode('{}'))
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new Uint8Array(32));
    expect((await refusal(() => decryptPazeToken(hs, recipient, trust))).reason).toBe('unsupported');
    const noExp = await new CompactSign(new TextEncoder().encode('{}'))
      .setProtectedHeader({ alg: 'RS256' })
      .sign(paze.privateKey);
    expect(await refusal(() => decryptPazeToken(noExp, recipient, trust))).toMatchObject({
      reason: 'malformed',
      message: expect.stringContaining('no exp'),
    });
    expect(await refusal(async () => decryptPazeToken(await sign({ payloadId: 'x' }), recipient, trust))).toMatchObject(
      { reason: 'malformed', message: expect.stringContaining('no securedPayload') },
    );
    const { completeResponse } = await make();
    expect(
      await refusal(() => decryptPazeToken(completeResponse, { ...recipient, profileId: 'PROFILE2' }, trust)),
    ).toMatchObject({ reason: 'wrong_key', message: expect.stringContaining('another Paze profile') });
    const noToken = await make({ data: data({ token: {} }) });
    expect(await refusal(() => decryptPazeToken(noToken.completeResponse, recipient, trust))).toMatchObject({
      reason: 'malformed',
      message: expect.stringContaining('paymentToken'),
    });
  });

  it('refuses a checkout_token of another session, expired, or not signed by Paze', async () => {
    expect(
      (await refusal(async () => verifyPazeCheckoutToken(await sign({ sessionId: 'session-2' }), trust, 'session-1')))
        .message,
    ).toContain('another Paze session');
    expect((await refusal(async () => verifyPazeCheckoutToken(await sign({}, { exp: 1 }), trust, null))).reason).toBe(
      'expired',
    );
    expect(
      (await refusal(async () => verifyPazeCheckoutToken(await sign({}, {}, stranger.privateKey), trust, null))).reason,
    ).toBe('signature');
  });
});
