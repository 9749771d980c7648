import { constants, createPublicKey, privateDecrypt, publicEncrypt, sign, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { derivedRsaKey, modInverse } from './derived-rsa.ts';

const SEED = Buffer.from('derived-rsa test seed');

describe('happy', () => {
  it('derives the same 2048-bit key for the same seed and label, another for another label', () => {
    const a = derivedRsaKey(SEED, 'one');
    expect(a.asymmetricKeyDetails).toEqual({ modulusLength: 2048, publicExponent: 65537n });
    const spki = (key: typeof a) => createPublicKey(key).export({ type: 'spki', format: 'der' }).toString('hex');
    expect(spki(derivedRsaKey(SEED, 'one'))).toBe(spki(a));
    expect(spki(derivedRsaKey(SEED, 'two'))).not.toBe(spki(a));
  });

  it('is a working key pair: signs and verifies, encrypts and decrypts (RSA-OAEP-256)', () => {
    const key = derivedRsaKey(SEED, 'one');
    const publicKey = createPublicKey(key);
    expect(verify('sha256', Buffer.from('hello'), publicKey, sign('sha256', Buffer.from('hello'), key))).toBe(true);
    const sealed = publicEncrypt(
      { key: publicKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
      Buffer.from('secret'),
    );
    expect(
      privateDecrypt({ key, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, sealed).toString(),
    ).toBe('secret');
  });

  it('modInverse inverts', () => {
    expect((modInverse(65537n, 3120n * 17n + 1n) * 65537n) % (3120n * 17n + 1n)).toBe(1n);
    expect(() => modInverse(6n, 9n)).toThrow('not invertible');
  });
});
