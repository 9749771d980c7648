import type { Deps, RequestContext } from '../../context.ts';
import type { DigitalWalletProvider } from '../../db/schema-digital-wallets.ts';
import type { Executor } from '../../db/transaction.ts';
import { fieldRefusal } from '../../errors/app-error.ts';
import { inBatchesUntilDone } from '../../lib/batches.ts';
import * as repo from './wallet-token-uses.repo.ts';

/**
 * The replay guard of wallet tokens (docs/digital-wallets.md, "A token pays once"): a token's unique
 * id is recorded with the transaction that used it, in the database transaction that records that
 * transaction (before any connector call), so the same token never pays a second transaction of the
 * merchant account, whatever its idempotency key. Only a keyed hash of the id is kept.
 */

export interface WalletTokenUse {
  provider: DigitalWalletProvider;
  /** Apple `header.transactionId`, Google `messageId` or the SHA-256 of the signed message. */
  tokenId: string;
  /** Until when the token could still be accepted somewhere. */
  usableUntil: Date;
}

/** Kept past the token's life: clocks differ, and a use purged early would let a late replay through. */
const MARGIN_MS = 3_600_000;
const NAMES: Record<DigitalWalletProvider, string> = {
  apple: 'Apple Pay',
  google: 'Google Pay',
  'click-to-pay': 'Click to Pay',
  paze: 'Paze',
};

/**
 * Records that `transactionId` uses the token; a token used before is a 400 naming the transaction
 * it paid. `tx`: the database transaction that records the transaction (the use rolls back with it).
 */
export async function recordWalletTokenUse(
  tx: Executor,
  ctx: RequestContext,
  use: WalletTokenUse,
  transactionId: string,
): Promise<void> {
  const tokenHash = await ctx.deps.vault.fingerprint(
    tx,
    ctx.merchantAccountId,
    `wallet-token:${use.provider}:${use.tokenId}`,
  );
  const expiresAt = new Date(Math.max(use.usableUntil.getTime(), Date.now()) + MARGIN_MS);
  const row = {
    merchant_account_id: ctx.merchantAccountId,
    token_hash: tokenHash,
    provider: use.provider,
    transaction_id: transactionId,
    expires_at: expiresAt,
  };
  if (await repo.insertTokenUse(tx, row)) return;
  const first = await repo.findTokenUse(tx, ctx.merchantAccountId, tokenHash);
  const paid = first ? ` for transaction ${first.transaction_id}` : '';
  throw fieldRefusal(
    'body',
    '/payment_method/token',
    `This ${NAMES[use.provider]} token was already used${paid}: a wallet token pays once. Request a new token from the wallet (the buyer confirms the payment again) and send it with the new request`,
    'wallet_token_replayed',
  );
}

/** Deletes the uses of tokens past their life (the purge-wallet-token-uses job); returns how many. */
export async function purgeExpiredWalletTokenUses(deps: Pick<Deps, 'db'>, now: Date): Promise<number> {
  return inBatchesUntilDone(() => repo.purgeExpiredTokenUses(deps.db, now));
}
