import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const VERSION = 'v1';

/**
 * AES-256-GCM with a random 96-bit IV. The output is `v1.<iv>.<tag>.<ciphertext>` in base64url.
 * `aad` (associated data) is authenticated but not stored: decryption needs the same value, which
 * binds a ciphertext to the place it was written for.
 */
export function seal(key: Buffer, plaintext: Buffer, aad: string): string {
  if (key.length !== 32) throw new Error('AES-256-GCM needs a 32-byte key');
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return [
    VERSION,
    iv.toString('base64url'),
    cipher.getAuthTag().toString('base64url'),
    ciphertext.toString('base64url'),
  ].join('.');
}

export class DecryptionError extends Error {
  constructor() {
    super('the ciphertext could not be decrypted (wrong key, wrong associated data, or tampered)');
    this.name = 'DecryptionError';
  }
}

export function open(key: Buffer, sealed: string, aad: string): Buffer {
  const [version, iv, tag, ciphertext, extra] = sealed.split('.');
  if (version !== VERSION || !iv || !tag || ciphertext === undefined || extra !== undefined)
    throw new DecryptionError();
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]);
  } catch {
    throw new DecryptionError();
  }
}

/** Short public identifier of a master key: never the key, never enough to guess it. */
export function keyId(key: Buffer): string {
  return createHash('sha256').update('svc-vault-key-id').update(key).digest('hex').slice(0, 16);
}
