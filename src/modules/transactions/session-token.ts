import { createHmac, timingSafeEqual } from 'node:crypto';

/** The claim a valid token carries: the merchant account of its transaction, and its expiry. */
export interface SessionTokenClaim {
  merchantAccountId: string;
  expiresAt: Date;
}

const MAC_BYTES = 32;

/**
 * Transaction session tokens (`session_token`, the `?token=` of `POST /transactions/{id}/session`):
 * `<merchant account, base64url>.<expiry, ms>.<HMAC-SHA256>`, the MAC over the transaction id, its
 * merchant account and the expiry, keyed by an instance-wide secret every process shares through
 * the database. Nothing is stored: the server renders the same token again from the transaction
 * (its approval deadline) and checks one by recomputing its MAC, so no token, nor anything a token
 * could be recovered or confirmed from without the key, is kept (decision 0056).
 * The merchant account rides in the token so the check finds the
 * transaction by its primary key without a lookup by id alone.
 */
export class TransactionSessionTokens {
  constructor(private readonly secret: Buffer) {}

  private mac(merchantAccountId: string, transactionId: string, expiresMs: number): Buffer {
    // JSON keeps the parts apart: no text can move from one part into another.
    return createHmac('sha256', this.secret)
      .update(JSON.stringify(['transaction-session', merchantAccountId, transactionId, expiresMs]))
      .digest();
  }

  issue(merchantAccountId: string, transactionId: string, expiresAt: Date): string {
    const expiresMs = expiresAt.getTime();
    return `${Buffer.from(merchantAccountId).toString('base64url')}.${expiresMs}.${this.mac(merchantAccountId, transactionId, expiresMs).toString('base64url')}`;
  }

  /**
   * The claim of `token` for `transactionId`, or null when it is malformed or its MAC does not
   * match (a token of another transaction, an edited expiry or account). Expiry is the caller's
   * check. The MACs compare in constant time, as equal-length digests.
   */
  read(token: string, transactionId: string): SessionTokenClaim | null {
    const parts = token.split('.');
    if (parts.length !== 3 || !/^[A-Za-z0-9_-]{1,400}$/.test(parts[0]!) || !/^\d{1,15}$/.test(parts[1]!)) return null;
    const given = Buffer.from(parts[2]!, 'base64url');
    // One spelling per MAC: base64url's last character carries spare bits a decoder ignores.
    if (given.length !== MAC_BYTES || given.toString('base64url') !== parts[2]) return null;
    const merchantAccountId = Buffer.from(parts[0]!, 'base64url').toString('utf8');
    const expiresMs = Number(parts[1]);
    if (!timingSafeEqual(given, this.mac(merchantAccountId, transactionId, expiresMs))) return null;
    return { merchantAccountId, expiresAt: new Date(expiresMs) };
  }
}
