/**
 * A wallet payment token that cannot be used: malformed, tampered with, signed by an untrusted or
 * expired chain, too old, or encrypted for another key. The message says which, and never contains
 * decrypted data; the transaction engine answers it as a 400 on `payment_method.token`.
 */
export class WalletTokenError extends Error {
  constructor(
    readonly reason: 'malformed' | 'unsupported' | 'signature' | 'expired' | 'wrong_key' | 'decryption',
    message: string,
  ) {
    super(message);
    this.name = 'WalletTokenError';
  }
}

export const fail = (reason: WalletTokenError['reason'], message: string): never => {
  throw new WalletTokenError(reason, message);
};

/** Base64 text that decodes to at least one byte, else a `malformed` error naming `what`. */
export function base64Field(value: unknown, what: string): Buffer {
  if (typeof value !== 'string' || !/^[A-Za-z0-9+/_-]+={0,2}$/.test(value))
    return fail('malformed', `${what} must be base64 text`);
  const bytes = Buffer.from(value, 'base64');
  if (bytes.length === 0) return fail('malformed', `${what} must not be empty`);
  return bytes;
}
