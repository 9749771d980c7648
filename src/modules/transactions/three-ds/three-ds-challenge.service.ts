import { withRequestTransaction, type Deps, type RequestContext } from '../../../context.ts';
import type { ThreeDsChallengeRow } from '../../../db/schema-three-ds-challenges.ts';
import type { TransactionRow } from '../../../db/schema-transactions.ts';
import { withTransaction, type Tx } from '../../../db/transaction.ts';
import { AppError, notFound } from '../../../errors/app-error.ts';
import { uuidv7 } from '../../../lib/ids.ts';
import { recordAudit } from '../../audit-logs/audit-logs.service.ts';
import { reverseRedeemed, systemContext } from '../gift-card-tender.ts';
import type { ResolvedInstrument } from '../create/instrument.ts';
import type { Patch } from '../outcomes.ts';
import { stopWith, type Prepared } from '../create/prepare-transaction.ts';
import { abandonedChallenge, type ChallengeOutcomes } from './three-d-secure.ts';
import * as challenges from './three-ds-challenges.repo.ts';
import { event, statusEvent } from '../transaction-events.ts';
import { intentOutcome, nextStatus } from '../transaction-status.ts';
import type { Transaction } from '../transaction.schema.ts';
import { transactionResource } from '../transaction-view.ts';
import * as repo from '../transactions.repo.ts';
import { emitStatusChange, emitTransaction } from '../webhook-events.ts';

/**
 * The interactive sandbox 3DS challenge (decision 0061). A challenged
 * card transaction waits in `buyer_approval_pending` with the challenge page as its approval URL;
 * the connector is not called until the buyer completes the challenge
 * (three-ds-challenge-authorize.ts). A raw card is kept sealed by the vault on the challenge row
 * and its security code held by the vault, both only until the challenge ends, however it ends.
 */

/** What the creating transaction hands over (a subset of create-transaction's `Started`). */
export interface ChallengeStart {
  row: TransactionRow;
  instrument: ResolvedInstrument | null;
  prepared: Prepared;
  store: boolean;
}

export const challengeOwner = (id: string) => ({ type: 'three-ds-challenge' as const, id });
export const challengeBinding = (id: string) => ({ table: 'three_ds_challenges', column: 'number', rowId: id });
export const outcomesOf = (row: ThreeDsChallengeRow) => row.outcomes as unknown as ChallengeOutcomes;
/** The columns that clear a challenge's card data (the CHECK of migration 0016 requires it once it ended). */
export const NO_CARD = { number_ciphertext: null, number_key_id: null, expiration_date: null } as const;

const challengeUrl = (deps: Deps, merchantAccountId: string, id: string) =>
  `${deps.config.publicUrl}/sandbox/challenges/${encodeURIComponent(merchantAccountId)}/${id}`;

/**
 * `POST /transactions` for a challenged card: seals what the authorization will need, then records
 * the transaction `buyer_approval_pending` (events, audit, webhook, idempotent answer) in one
 * database transaction. No attempt exists yet: nothing was sent to a connector.
 */
/**
 * `before`: a step-up (create/step-up-attempt.ts) records the declined attempt and its decision
 * first, under the same lock, and returns the row to continue from.
 */
export async function pendChallenge(
  ctx: RequestContext,
  started: ChallengeStart,
  before?: (tx: Tx, current: TransactionRow) => Promise<TransactionRow>,
): Promise<Transaction> {
  const { instrument, prepared } = started;
  if (instrument?.instrument.kind !== 'card' || !prepared.challenge)
    throw new Error('only a card transaction can be challenged');
  const card = instrument.instrument;
  const outcomes = prepared.challenge;
  return withRequestTransaction(ctx, async (tx) => {
    const locked = (await repo.findTransaction(tx, ctx.merchantAccountId, started.row.id, { forUpdate: true }))!;
    const current = before ? await before(tx, locked) : locked;
    const now = new Date();
    const expiresAt = new Date(now.getTime() + ctx.deps.config.buyerApprovalTimeoutSeconds * 1000);
    const id = uuidv7();
    // A stored card is read from the vault again when the challenge completes; only a raw card is kept.
    const sealed = instrument.paymentMethodId
      ? null
      : await ctx.deps.vault.encrypt(tx, ctx.merchantAccountId, card.number, challengeBinding(id));
    await challenges.insertChallenge(tx, {
      merchant_account_id: ctx.merchantAccountId,
      id,
      transaction_id: current.id,
      status: 'pending',
      outcomes: JSON.stringify(outcomes),
      store: started.store,
      number_ciphertext: sealed?.ciphertext ?? null,
      number_key_id: sealed?.keyId ?? null,
      expiration_date: sealed ? card.expirationDate : null,
      expires_at: expiresAt,
    });
    if (card.securityCode)
      await ctx.deps.vault.holdSecurityCode(
        tx,
        ctx.merchantAccountId,
        challengeOwner(id),
        card.securityCode,
        expiresAt,
      );
    const status = nextStatus(current.status, 'buyer_approval_pending');
    const row = await repo.updateTransaction(tx, ctx.merchantAccountId, current.id, {
      status,
      intent_outcome: intentOutcome(current.intent, status),
      approval_url: challengeUrl(ctx.deps, ctx.merchantAccountId, id),
      approval_expires_at: expiresAt,
    });
    const started3ds = event(
      row,
      'three-d-secure-authentication-request',
      { method: 'challenge', expires_at: expiresAt.toISOString() },
      now,
    );
    await repo.insertEvents(
      tx,
      [statusEvent(row, current.status, now), started3ds].filter((e) => e !== null),
    );
    await recordAudit(tx, ctx, 'created', { type: 'transaction', id: row.id, name: `${row.currency} ${row.amount}` });
    await emitTransaction(tx, ctx.deps, row, 'transaction.created');
    return transactionResource(tx, ctx, row);
  });
}

export interface ChallengePage {
  transactionId: string;
  amount: number;
  currency: string;
  /** The card's scheme and last 4 digits, as the issuer's page would show them. */
  card: string;
  status: string;
  open: boolean;
  /** Where the buyer goes back to once the challenge ends (the payment method's redirect_url). */
  redirectUrl: string | null;
}

/** What the sandbox challenge page shows (404 for an unknown challenge). */
export async function challengePage(
  deps: Deps,
  merchantAccountId: string,
  challengeId: string,
): Promise<ChallengePage> {
  const challenge = await challenges.findChallenge(deps.db, merchantAccountId, challengeId);
  const row = challenge ? await repo.findTransaction(deps.db, merchantAccountId, challenge.transaction_id) : undefined;
  if (!challenge || !row) throw notFound('challenge');
  const pm = (row.payment_method ?? {}) as { scheme?: string | null; label?: string | null };
  return {
    transactionId: row.id,
    amount: row.amount,
    currency: row.currency,
    card: `${pm.scheme ?? 'card'} •••• ${pm.label ?? ''}`,
    status: row.status,
    open:
      challenge.status === 'pending' && row.status === 'buyer_approval_pending' && challenge.expires_at > new Date(),
    redirectUrl: (row.extra as { redirect_url?: string }).redirect_url ?? null,
  };
}

/** Locks a challenge that the buyer may still act on; 404 unknown, 400 when it ended or expired. */
export async function lockOpenChallenge(
  tx: Tx,
  merchantAccountId: string,
  challengeId: string,
): Promise<{ challenge: ThreeDsChallengeRow; row: TransactionRow }> {
  const challenge = await challenges.findChallenge(tx, merchantAccountId, challengeId, { forUpdate: true });
  const row =
    challenge && (await repo.findTransaction(tx, merchantAccountId, challenge.transaction_id, { forUpdate: true }));
  if (!challenge || !row) throw notFound('challenge');
  if (challenge.status !== 'pending' || row.status !== 'buyer_approval_pending')
    throw new AppError('bad_request', 'This payment is no longer waiting for its 3DS challenge');
  if (challenge.expires_at <= new Date())
    throw new AppError('bad_request', 'The 3DS challenge of this payment has expired');
  return { challenge, row };
}

/** Ends a challenge and destroys its card data (number and held security code) in the caller's transaction. */
export async function closeChallenge(
  tx: Tx,
  deps: Deps,
  challenge: ThreeDsChallengeRow,
  status: 'completed' | 'failed' | 'expired' | 'canceled',
): Promise<void> {
  await challenges.updateChallenge(tx, challenge.merchant_account_id, challenge.id, { status, ...NO_CARD });
  await deps.vault.discardSecurityCode(tx, challenge.merchant_account_id, challengeOwner(challenge.id));
}

/** The transaction ends without an authorization: status, events and webhook, under the row lock. */
async function endWithout(
  tx: Tx,
  deps: Deps,
  row: TransactionRow,
  patch: Patch,
  outcome: string,
  now: Date,
): Promise<TransactionRow> {
  const updated = await repo.updateTransaction(tx, row.merchant_account_id, row.id, patch);
  const result = event(
    updated,
    'three-d-secure-result-request',
    { method: 'challenge', outcome, status: (updated.three_d_secure as { status?: string } | null)?.status ?? null },
    now,
  );
  await repo.insertEvents(
    tx,
    [result, statusEvent(updated, row.status, now)].filter((e) => e !== null),
  );
  await emitStatusChange(tx, deps, row, updated);
  return updated;
}

/** The buyer failed the challenge (or completed one whose scenario result is `N`): declined before any connector call. */
export async function declineChallenge(
  tx: Tx,
  deps: Deps,
  challenge: ThreeDsChallengeRow,
  row: TransactionRow,
): Promise<TransactionRow> {
  const failed = outcomesOf(challenge).failed;
  await closeChallenge(tx, deps, challenge, 'failed');
  const patch = {
    ...stopWith(failed.errorCode ?? 'three_d_secure_authentication_failed')(row).patch,
    three_d_secure: JSON.stringify(failed.summary),
  };
  return endWithout(tx, deps, row, patch, 'failed', new Date());
}

/** The page's "fail": the transaction ends `authorization_declined`; gift cards it redeemed are given back. */
export async function failChallenge(ctx: RequestContext, challengeId: string): Promise<TransactionRow> {
  const row = await withTransaction(ctx.deps.db, async (tx) => {
    const open = await lockOpenChallenge(tx, ctx.merchantAccountId, challengeId);
    return declineChallenge(tx, ctx.deps, open.challenge, open.row);
  });
  await reverseRedeemed(ctx, row);
  return row;
}

/**
 * `POST /transactions/{id}/cancel` of a challenged transaction: the challenge ends and its card
 * data goes in the cancel's database transaction. Returns what the transaction's row gets.
 */
export async function cancelChallenge(tx: Tx, deps: Deps, row: TransactionRow): Promise<Patch> {
  const challenge = await challenges.findChallengeOfTransaction(tx, row.merchant_account_id, row.id, {
    forUpdate: true,
  });
  if (challenge?.status !== 'pending') return {};
  await closeChallenge(tx, deps, challenge, 'canceled');
  return { three_d_secure: JSON.stringify(abandonedChallenge(row.three_d_secure ?? {}, 'cancelled')) };
}

type Log = { warn(obj: object, msg?: string): void; info(obj: object, msg?: string): void };

/**
 * The timeout: a challenge the buyer never finished ends like a redirect approval that expired
 * (`authorization_failed`, `buyer_approval_timeout`), with `three_d_secure.status` `error`, and its
 * card data is destroyed. Returns how many challenges expired.
 */
export async function expireThreeDsChallenges(
  deps: Deps,
  now: Date,
  log: Log = { warn: () => undefined, info: () => undefined },
): Promise<number> {
  let expired = 0;
  for (const due of await challenges.listExpiredChallenges(deps.db, now, 100)) {
    const row = await withTransaction(deps.db, async (tx) => {
      const challenge = await challenges.findChallenge(tx, due.merchant_account_id, due.id, { forUpdate: true });
      const current =
        challenge &&
        (await repo.findTransaction(tx, due.merchant_account_id, challenge.transaction_id, { forUpdate: true }));
      if (challenge?.status !== 'pending' || !current) return null;
      await closeChallenge(tx, deps, challenge, 'expired');
      if (current.status !== 'buyer_approval_pending') return null;
      const status = nextStatus(current.status, 'authorization_failed');
      const patch = {
        status,
        intent_outcome: intentOutcome(current.intent, status),
        error_code: 'buyer_approval_timeout',
        buyer_approval_timedout_at: now,
        three_d_secure: JSON.stringify(abandonedChallenge(current.three_d_secure ?? {}, 'error')),
      };
      return endWithout(tx, deps, current, patch, 'expired', now);
    });
    if (!row) continue;
    expired++;
    await reverseRedeemed(systemContext(deps, row.merchant_account_id, 'expireThreeDsChallenges', log), row);
  }
  return expired;
}
