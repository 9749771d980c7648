import { createPrivateKey, createPublicKey, generateKeyPairSync, X509Certificate, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { APPLE_INTERMEDIATE_MARKER, APPLE_LEAF_MARKER, decryptApplePayToken, makeApplePayToken } from './apple-pay.ts';
import { APPLE_ROOT_CA_G3 } from './apple-root.ts';
import { walletRefusal as refusal } from '../../test/helpers/wallet-refusal.ts';
import { issueCertificate } from './x509.ts';

/** A test chain of our own: root → intermediate (Apple's marker) → leaf (Apple's marker). */
function chain(options: { leafMarker?: string; notAfter?: Date } = {}) {
  const key = () => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
  const [rootKey, intermediateKey, leafKey] = [key(), key(), key()];
  const validity = { notBefore: new Date('2020-01-01'), notAfter: options.notAfter ?? new Date('2040-01-01') };
  const root = issueCertificate({
    ...validity,
    subject: 'Test Root',
    issuer: 'Test Root',
    serial: 1,
    publicKey: createPublicKey(rootKey),
    issuerKey: rootKey,
    ca: true,
  });
  const intermediate = issueCertificate({
    ...validity,
    subject: 'Test Intermediate',
    issuer: 'Test Root',
    serial: 2,
    publicKey: createPublicKey(intermediateKey),
    issuerKey: rootKey,
    ca: true,
    markers: [APPLE_INTERMEDIATE_MARKER],
  });
  const leaf = issueCertificate({
    ...validity,
    subject: 'Test Leaf',
    issuer: 'Test Intermediate',
    serial: 3,
    publicKey: createPublicKey(leafKey),
    issuerKey: intermediateKey,
    ca: false,
    markers: [options.leafMarker ?? APPLE_LEAF_MARKER],
  });
  return { root: new X509Certificate(root), signer: { leaf, intermediate, key: leafKey } };
}

const PAYMENT = {
  applicationPrimaryAccountNumber: '4895370012003478',
  applicationExpirationDate: '301231',
  currencyCode: '840',
  transactionAmount: 1000,
  deviceManufacturerIdentifier: '040010030273',
  paymentDataType: '3DSecure',
  paymentData: { onlinePaymentCryptogram: 'AgAAAAAAAIR8CQrXcIhbQAAAAAA=', eciIndicator: '07' },
};
const MERCHANT = 'merchant.com.example.shop';
const processing = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const trusted = chain();
const now = new Date();
const trust = { roots: [trusted.root], now, maxAgeSeconds: 300 };
const recipient = { privateKey: processing.privateKey, merchantIdentifier: MERCHANT };

function token(
  overrides: {
    signer?: ReturnType<typeof chain>['signer'];
    signingTime?: Date;
    recipientKey?: KeyObject;
    merchantIdentifier?: string;
    payment?: Record<string, unknown>;
  } = {},
) {
  return makeApplePayToken({
    payment: overrides.payment ?? PAYMENT,
    recipientPublicKey: overrides.recipientKey ?? processing.publicKey,
    merchantIdentifier: overrides.merchantIdentifier ?? MERCHANT,
    signer: overrides.signer ?? trusted.signer,
    signingTime: overrides.signingTime ?? now,
    network: 'Visa',
  }) as { paymentData: { data: string; signature: string; header: Record<string, string> } };
}

describe('happy', () => {
  it('verifies and decrypts an EC_v1 token: device account number, expiry, cryptogram, ECI, approved amount, id and life', () => {
    const t = token();
    expect(decryptApplePayToken(t, recipient, trust)).toEqual({
      kind: 'dpan',
      number: '4895370012003478',
      expirationDate: '12/30',
      cryptogram: 'AgAAAAAAAIR8CQrXcIhbQAAAAAA=',
      eci: '07',
      amount: 1000,
      currencyCode: '840',
      tokenId: t.paymentData.header.transactionId,
      usableUntil: new Date(Math.floor(now.getTime() / 1000) * 1000 + 300_000),
    });
  });

  it('names the token by its transaction id in lowercase: the letter case is not signed, so it must not make a new token', () => {
    const t = token();
    const id = t.paymentData.header.transactionId!;
    t.paymentData.header.transactionId = id.toUpperCase();
    expect(decryptApplePayToken(t, recipient, trust).tokenId).toBe(id.toLowerCase());
  });

  it('accepts paymentData alone (without paymentMethod and transactionIdentifier)', () => {
    expect(decryptApplePayToken(token().paymentData as never, recipient, trust).number).toBe('4895370012003478');
  });

  it("decrypts a token Apple made (a known-answer vector published by another library): the key derivation is Apple's", () => {
    // Every other token here comes from makeApplePayToken, which shares decryptApplePayToken's key
    // derivation: a derivation away from Apple's specification would pass them all. This one was
    // made by an Apple device for a published test merchant key and signed by Apple's own chain.
    const card = decryptApplePayToken(
      GALA.token,
      {
        privateKey: createPrivateKey({ key: GALA.privateKey, format: 'jwk' }),
        merchantIdentifier: GALA.merchantIdentifier,
      },
      { roots: [new X509Certificate(APPLE_ROOT_CA_G3)], now: GALA.signedAt, maxAgeSeconds: 300 },
    );
    expect(card).toEqual({
      kind: 'dpan',
      number: '5353756319181169',
      expirationDate: '09/24',
      cryptogram: 'AMwBRjPWDnAgAA7Rls7mAoABFA==',
      eci: null,
      amount: 100,
      currencyCode: '840',
      tokenId: GALA.token.header.transactionId,
      usableUntil: new Date(GALA.signedAt.getTime() + 300_000),
    });
  });

  it('the embedded Apple Root CA - G3 is the published one', () => {
    expect(new X509Certificate(APPLE_ROOT_CA_G3).fingerprint256).toBe(
      '63:34:3A:BF:B8:9A:6A:03:EB:B5:7E:9B:3F:5F:A7:BE:7C:4F:5C:75:6F:30:17:B3:A8:C4:88:C3:65:3E:91:79',
    );
  });
});

describe('errors', () => {
  it('refuses a token signed under another root (bad signature chain)', () => {
    expect(refusal(() => decryptApplePayToken(token({ signer: chain().signer }), recipient, trust))).toMatchObject({
      reason: 'signature',
      message: expect.stringContaining('trusted root'),
    });
  });

  it('refuses a chain whose leaf lacks the signing extension', () => {
    expect(
      refusal(() =>
        decryptApplePayToken(token({ signer: chain({ leafMarker: '1.2.3.4' }).signer }), recipient, {
          ...trust,
          roots: [],
        }),
      ).reason,
    ).toBe('signature');
  });

  it('refuses tampered ciphertext (the signature covers the data)', () => {
    const t = token();
    const data = Buffer.from(t.paymentData.data, 'base64');
    data[5]! ^= 1;
    t.paymentData.data = data.toString('base64');
    expect(refusal(() => decryptApplePayToken(t, recipient, trust))).toMatchObject({
      reason: 'signature',
      message: expect.stringContaining('tampered'),
    });
  });

  it('refuses an altered transaction id', () => {
    const t = token();
    t.paymentData.header.transactionId = `ab${t.paymentData.header.transactionId!.slice(2)}`;
    expect(refusal(() => decryptApplePayToken(t, recipient, trust)).reason).toBe('signature');
  });

  it('refuses a token signed too long ago, and one signed in the future', () => {
    expect(
      refusal(() => decryptApplePayToken(token({ signingTime: new Date(now.getTime() - 301_000) }), recipient, trust)),
    ).toMatchObject({ reason: 'expired', message: expect.stringContaining('older than 300 seconds') });
    expect(
      refusal(() => decryptApplePayToken(token({ signingTime: new Date(now.getTime() + 3600_000) }), recipient, trust))
        .reason,
    ).toBe('expired');
  });

  it('refuses a token encrypted for another processing key', () => {
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    expect(refusal(() => decryptApplePayToken(token({ recipientKey: other.publicKey }), recipient, trust)).reason).toBe(
      'wrong_key',
    );
  });

  it('refuses a token whose key derivation used another merchant identifier', () => {
    expect(
      refusal(() => decryptApplePayToken(token({ merchantIdentifier: 'merchant.other' }), recipient, trust)).reason,
    ).toBe('decryption');
  });

  it('refuses an expired certificate chain', () => {
    const old = chain({ notAfter: new Date('2021-01-01') });
    expect(
      refusal(() => decryptApplePayToken(token({ signer: old.signer }), recipient, { ...trust, roots: [old.root] }))
        .message,
    ).toContain('not valid at this time');
  });

  it('refuses RSA_v1 and malformed tokens with a message naming the field', () => {
    expect(refusal(() => decryptApplePayToken({ paymentData: { version: 'RSA_v1' } }, recipient, trust)).reason).toBe(
      'unsupported',
    );
    expect(
      refusal(() =>
        decryptApplePayToken({ paymentData: { version: 'EC_v1', header: { transactionId: 'zz' } } }, recipient, trust),
      ).message,
    ).toContain('transactionId');
    // An odd digit would be dropped by the hex decoding of the signed content: the same signature under a new id.
    const odd = token();
    odd.paymentData.header.transactionId += 'a';
    expect(refusal(() => decryptApplePayToken(odd, recipient, trust))).toMatchObject({
      reason: 'malformed',
      message: expect.stringContaining('transactionId'),
    });
    const t = token();
    t.paymentData.signature = 'bm90IGEgc2lnbmF0dXJl';
    expect(refusal(() => decryptApplePayToken(t, recipient, trust)).message).toContain('PKCS#7');
  });

  it('refuses decrypted data that is not a 3DSecure token', () => {
    expect(
      refusal(() => decryptApplePayToken(token({ payment: { ...PAYMENT, paymentDataType: 'EMV' } }), recipient, trust))
        .reason,
    ).toBe('unsupported');
  });
});

/**
 * A known-answer vector from an independent implementation: the fixtures of spreedly/gala (Ruby,
 * MIT licence), test/fixtures/{token.json,private_key.pem,certificate.pem} at commit a3223fb
 * (https://github.com/spreedly/gala/tree/a3223fb199d00a16db6a5e503d1f2aa8f11aa9b1/test/fixtures).
 * Its test_decrypt expects the card below; its tests also give the ECDH secret
 * (yCUzDuNYTnUnANZEdxC7+DvPmqNslB2YWYn68SBsJHU=) and the derived key
 * (3GTXJ4RuP/IhS23hsdOw2J2ecAZmC0RasbPIFdC3nQM=). The merchant identifier is the certificate's
 * UID; SHA-256 of it is the certificate's merchant id field 358DA589…F439. The private key is that
 * published test key (a sandbox merchant's, in JWK form), not a secret. The signature is Apple's
 * (leaf valid 2019-05-18 to 2024-05-16), signed at 2021-09-01T19:03:06Z, so the check runs then.
 */
const GALA = {
  merchantIdentifier: 'merchant.test.spreedly.123merchant',
  privateKey: {
    kty: 'EC',
    crv: 'P-256',
    x: '4pUGHJqfJCucG40MvdGqTwvYRz2N9WvCtOHdtAuNf1s',
    y: 'wdjD2ci7KlN9md2uc9VnFiujh5nww0qjq30Ku1F5UIA',
    d: 'Ka8HtvNFzNolfTmUJMra55FVEACK8z8KBsfI5ohypbU',
  },
  signedAt: new Date('2021-09-01T19:03:06Z'),
  token: {
    version: 'EC_v1',
    data: '98K9zY2CVmVzD/9A9mq7EtYOLda1LUWn1bDZM8Cy/ABPBok2B630eG9eZJUrlMYwJeaedYTpSgS3OZWX4dSnGquZ2S5I9Me44OmiirRwU4rZ/J4NBK+zwtmxv4OonZYjTmbKACTahSG0IylGWC0ah6hOTSfOTOzn2KIHs+B5i1bVDHfoq8o41gBoxvfS26kUfFiH8HtQBbZ+2Cea8/7NxCwSpGUADEUqmEar0ZIS9ndK+XGLyICwSgP8J1wJpoOndscXHi3wkY7MgpOfrA5Z/wCR3RbSGZtD94por+bwv0N8OgcTXAnDnDVXBWuj8rSU+imWEtY0C+rl/Ro/btPbAE4WjkElxsmVEWY14cb8EQFmmdbx3kRF9emTxs6ssAEhqZrdiUTmu9nynuu0',
    signature:
      'MIAGCSqGSIb3DQEHAqCAMIACAQExDzANBglghkgBZQMEAgEFADCABgkqhkiG9w0BBwEAAKCAMIID4zCCA4igAwIBAgIITDBBSVGdVDYwCgYIKoZIzj0EAwIwejEuMCwGA1UEAwwlQXBwbGUgQXBwbGljYXRpb24gSW50ZWdyYXRpb24gQ0EgLSBHMzEmMCQGA1UECwwdQXBwbGUgQ2VydGlmaWNhdGlvbiBBdXRob3JpdHkxEzARBgNVBAoMCkFwcGxlIEluYy4xCzAJBgNVBAYTAlVTMB4XDTE5MDUxODAxMzI1N1oXDTI0MDUxNjAxMzI1N1owXzElMCMGA1UEAwwcZWNjLXNtcC1icm9rZXItc2lnbl9VQzQtUFJPRDEUMBIGA1UECwwLaU9TIFN5c3RlbXMxEzARBgNVBAoMCkFwcGxlIEluYy4xCzAJBgNVBAYTAlVTMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEwhV37evWx7Ihj2jdcJChIY3HsL1vLCg9hGCV2Ur0pUEbg0IO2BHzQH6DMx8cVMP36zIg1rrV1O/0komJPnwPE6OCAhEwggINMAwGA1UdEwEB/wQCMAAwHwYDVR0jBBgwFoAUI/JJxE+T5O8n5sT2KGw/orv9LkswRQYIKwYBBQUHAQEEOTA3MDUGCCsGAQUFBzABhilodHRwOi8vb2NzcC5hcHBsZS5jb20vb2NzcDA0LWFwcGxlYWljYTMwMjCCAR0GA1UdIASCARQwggEQMIIBDAYJKoZIhvdjZAUBMIH+MIHDBggrBgEFBQcCAjCBtgyBs1JlbGlhbmNlIG9uIHRoaXMgY2VydGlmaWNhdGUgYnkgYW55IHBhcnR5IGFzc3VtZXMgYWNjZXB0YW5jZSBvZiB0aGUgdGhlbiBhcHBsaWNhYmxlIHN0YW5kYXJkIHRlcm1zIGFuZCBjb25kaXRpb25zIG9mIHVzZSwgY2VydGlmaWNhdGUgcG9saWN5IGFuZCBjZXJ0aWZpY2F0aW9uIHByYWN0aWNlIHN0YXRlbWVudHMuMDYGCCsGAQUFBwIBFipodHRwOi8vd3d3LmFwcGxlLmNvbS9jZXJ0aWZpY2F0ZWF1dGhvcml0eS8wNAYDVR0fBC0wKzApoCegJYYjaHR0cDovL2NybC5hcHBsZS5jb20vYXBwbGVhaWNhMy5jcmwwHQYDVR0OBBYEFJRX22/VdIGGiYl2L35XhQfnm1gkMA4GA1UdDwEB/wQEAwIHgDAPBgkqhkiG92NkBh0EAgUAMAoGCCqGSM49BAMCA0kAMEYCIQC+CVcf5x4ec1tV5a+stMcv60RfMBhSIsclEAK2Hr1vVQIhANGLNQpd1t1usXRgNbEess6Hz6Pmr2y9g4CJDcgs3apjMIIC7jCCAnWgAwIBAgIISW0vvzqY2pcwCgYIKoZIzj0EAwIwZzEbMBkGA1UEAwwSQXBwbGUgUm9vdCBDQSAtIEczMSYwJAYDVQQLDB1BcHBsZSBDZXJ0aWZpY2F0aW9uIEF1dGhvcml0eTETMBEGA1UECgwKQXBwbGUgSW5jLjELMAkGA1UEBhMCVVMwHhcNMTQwNTA2MjM0NjMwWhcNMjkwNTA2MjM0NjMwWjB6MS4wLAYDVQQDDCVBcHBsZSBBcHBsaWNhdGlvbiBJbnRlZ3JhdGlvbiBDQSAtIEczMSYwJAYDVQQLDB1BcHBsZSBDZXJ0aWZpY2F0aW9uIEF1dGhvcml0eTETMBEGA1UECgwKQXBwbGUgSW5jLjELMAkGA1UEBhMCVVMwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAATwFxGEGddkhdUaXiWBB3bogKLv3nuuTeCN/EuT4TNW1WZbNa4i0Jd2DSJOe7oI/XYXzojLdrtmcL7I6CmE/1RFo4H3MIH0MEYGCCsGAQUFBwEBBDowODA2BggrBgEFBQcwAYYqaHR0cDovL29jc3AuYXBwbGUuY29tL29jc3AwNC1hcHBsZXJvb3RjYWczMB0GA1UdDgQWBBQj8knET5Pk7yfmxPYobD+iu/0uSzAPBgNVHRMBAf8EBTADAQH/MB8GA1UdIwQYMBaAFLuw3qFYM4iapIqZ3r6966/ayySrMDcGA1UdHwQwMC4wLKAqoCiGJmh0dHA6Ly9jcmwuYXBwbGUuY29tL2FwcGxlcm9vdGNhZzMuY3JsMA4GA1UdDwEB/wQEAwIBBjAQBgoqhkiG92NkBgIOBAIFADAKBggqhkjOPQQDAgNnADBkAjA6z3KDURaZsYb7NcNWymK/9Bft2Q91TaKOvvGcgV5Ct4n4mPebWZ+Y1UENj53pwv4CMDIt1UQhsKMFd2xd8zg7kGf9F3wsIW2WT8ZyaYISb1T4en0bmcubCYkhYQaZDwmSHQAAMYIBjTCCAYkCAQEwgYYwejEuMCwGA1UEAwwlQXBwbGUgQXBwbGljYXRpb24gSW50ZWdyYXRpb24gQ0EgLSBHMzEmMCQGA1UECwwdQXBwbGUgQ2VydGlmaWNhdGlvbiBBdXRob3JpdHkxEzARBgNVBAoMCkFwcGxlIEluYy4xCzAJBgNVBAYTAlVTAghMMEFJUZ1UNjANBglghkgBZQMEAgEFAKCBlTAYBgkqhkiG9w0BCQMxCwYJKoZIhvcNAQcBMBwGCSqGSIb3DQEJBTEPFw0yMTA5MDExOTAzMDZaMCoGCSqGSIb3DQEJNDEdMBswDQYJYIZIAWUDBAIBBQChCgYIKoZIzj0EAwIwLwYJKoZIhvcNAQkEMSIEIJp5MA0izHSXJb0IZHNgCPFTzNVvCl93e6CLM+iDGmfjMAoGCCqGSM49BAMCBEgwRgIhAPpny9Qbxe1wpRcRK6kW8hfaT2G8L0cK55frTPNOjiw+AiEA1na4JJngB+yKCLij5V5JH2daE7Xcc91YbYywWL7QVSgAAAAAAAA=',
    header: {
      ephemeralPublicKey:
        'MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEHqqqjg3xlLn9YH2fEN1Gq3Z0IUJY1KZrX9/ZSzzYnFu3EDP4PGdPBpp6gzlHIb9vr9Tbz1HuMixBCfVMWhAvmw==',
      publicKeyHash: '+9VwJrqieiPF2ZRB0xHFYhgQ6RYza5hfrVLpdB1KtKI=',
      transactionId: 'f7f133694685bab2f44ae3a7b54e2c0d0d39a3bc73fa2e6b14a2baf628d6ce87',
    },
  },
};
