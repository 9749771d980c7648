import type { AuthorizeOutcome, Instrument, ThreeDSecureData } from '../../../connectors/connector.ts';
import type { RequestContext } from '../../../context.ts';
import type { ThreeDsChallengeRow } from '../../../db/schema-three-ds-challenges.ts';
import type { TransactionRow } from '../../../db/schema-transactions.ts';
import { withTransaction, type Tx } from '../../../db/transaction.ts';
import { uuidToBase62 } from '../../../lib/base62.ts';
import { uuidv7 } from '../../../lib/ids.ts';
import { lockAndReleaseCard } from '../../payment-methods/payment-methods.service.ts';
import { authorizationIntent } from '../review/review-hold.ts';
import {
  applyAuthorizeOutcome,
  authorizeOutcomeOf,
  schemeTransactionIdWrite,
  storeIfAccepted,
} from '../create/authorization-answer.ts';
import {
  attemptPatch,
  callConnector,
  connectorOfTransaction,
  type BoundConnector,
  type CallResult,
} from '../connector-call.ts';
import { recordLateAnswer } from '../void/late-void.service.ts';
import { detectSchemes } from '../../../lib/card-schemes.ts';
import { dimensionKeys } from '../../routing-stats/dimensions.ts';
import { countAuthorization } from '../../routing-stats/count-authorization.ts';
import { nextCheckAt, type Applied } from '../outcomes.ts';
import { scheduleSettlement } from '../settlements/settlements.service.ts';
import {
  challengeBinding,
  challengeOwner,
  closeChallenge,
  declineChallenge,
  lockOpenChallenge,
  outcomesOf,
} from './three-ds-challenge.service.ts';
import { reverseRedeemed } from '../gift-card-tender.ts';
import { attemptEvent, event, statusEvent } from '../transaction-events.ts';
import { TransitionError } from '../transaction-status.ts';
import * as repo from '../transactions.repo.ts';
import { emitStatusChange } from '../webhook-events.ts';

/**
 * The buyer completed the sandbox 3DS challenge: the authorization runs now, through the same
 * three steps as every connector call (decision 0052): (1) under the row
 * locks, end the challenge, release the card from the vault into memory (destroying what the
 * challenge held) and record the attempt; (2) call the connector outside any database transaction;
 * (3) apply the answer through the state machine with its events and webhook.
 */

interface Ready {
  row: TransactionRow;
  attemptId: string;
  bound: BoundConnector;
  instrument: Instrument;
  threeDs: ThreeDSecureData | null;
  /** A raw card that `store: true` vaults once it is authorized. */
  storable: {
    number: string;
    expiration_date: string;
    scheme: string;
    card_type?: string | null;
    external_identifier?: string | null;
  } | null;
  /** A stored card without a scheme transaction id: an approved answer gives it one. */
  lacksSchemeTransactionId: boolean;
}

/** The card the challenge waited with: a raw one opened from the challenge row, a stored one read again; the held code taken. */
async function releaseCard(
  tx: Tx,
  ctx: RequestContext,
  challenge: ThreeDsChallengeRow,
  row: TransactionRow,
): Promise<Pick<Ready, 'instrument' | 'storable' | 'lacksSchemeTransactionId'>> {
  const securityCode = await ctx.deps.vault.takeSecurityCode(tx, ctx.merchantAccountId, challengeOwner(challenge.id));
  const pm = (row.payment_method ?? {}) as {
    scheme?: string | null;
    card_type?: string | null;
    external_identifier?: string | null;
  };
  if (row.payment_method_id && !challenge.number_ciphertext) {
    const card = await lockAndReleaseCard(tx, ctx, row.payment_method_id, { lock: false });
    return {
      instrument: {
        kind: 'card',
        number: card.number,
        expirationDate: card.expirationDate ?? '',
        securityCode,
        scheme: card.scheme,
      },
      storable: null,
      lacksSchemeTransactionId: card.lacksSchemeTransactionId,
    };
  }
  const number = await ctx.deps.vault.decrypt(
    tx,
    ctx.merchantAccountId,
    { ciphertext: challenge.number_ciphertext!, keyId: challenge.number_key_id! },
    challengeBinding(challenge.id),
  );
  const expirationDate = challenge.expiration_date!;
  const storable =
    challenge.store && pm.scheme
      ? {
          number,
          expiration_date: expirationDate,
          scheme: pm.scheme,
          card_type: pm.card_type ?? null,
          external_identifier: pm.external_identifier ?? null,
        }
      : null;
  return {
    instrument: { kind: 'card', number, expirationDate, securityCode, scheme: pm.scheme ?? null },
    storable,
    lacksSchemeTransactionId: false,
  };
}

/** Step 1. The transaction row instead when the completed challenge ends it (scenario result `N`). */
async function prepare(ctx: RequestContext, challengeId: string): Promise<Ready | TransactionRow> {
  return withTransaction(ctx.deps.db, async (tx) => {
    const { challenge, row } = await lockOpenChallenge(tx, ctx.merchantAccountId, challengeId);
    const completed = outcomesOf(challenge).completed;
    if (completed.kind === 'failed') return declineChallenge(tx, ctx.deps, challenge, row);
    // Both checks throw (400) before anything changes: the challenge stays open, and times out if nothing else happens.
    const bound = await connectorOfTransaction(tx, ctx.deps, row);
    const card = await releaseCard(tx, ctx, challenge, row);
    await closeChallenge(tx, ctx.deps, challenge, 'completed');
    const now = new Date();
    const attemptId = uuidv7();
    await repo.insertAttempt(tx, {
      merchant_account_id: ctx.merchantAccountId,
      id: attemptId,
      transaction_id: row.id,
      operation: 'authorize',
      status: 'in_flight',
      amount: row.amount,
      payment_service_id: row.payment_service_id,
      next_check_at: nextCheckAt(0, now),
    });
    // The buyer's part is over: an unknown answer is now reconciliation's, not the approval timeout's.
    const updated = await repo.updateTransaction(tx, ctx.merchantAccountId, row.id, {
      three_d_secure: JSON.stringify(completed.summary),
      approval_expires_at: null,
    });
    await repo.insertEvents(tx, [
      event(
        updated,
        completed.kind === 'authenticated' ? 'three-d-secure-success' : 'three-d-secure-result-request',
        { method: 'challenge', outcome: 'completed', status: completed.summary.status ?? null },
        now,
      ),
    ]);
    return { row: updated, attemptId, bound, threeDs: completed.data, ...card };
  });
}

async function authorize(ctx: RequestContext, ready: Ready) {
  const { row, bound } = ready;
  const result = await callConnector(
    () =>
      bound.connector.authorize({
        idempotencyKey: ready.attemptId,
        credentials: bound.credentials,
        options: bound.options,
        reference: uuidToBase62(row.id),
        amount: row.amount - row.gift_card_amount,
        currency: row.currency,
        country: row.country,
        intent: authorizationIntent(row),
        instrument: ready.instrument,
        merchantInitiated: row.merchant_initiated,
        isSubsequentPayment: row.is_subsequent_payment,
        paymentSource: row.payment_source,
        // A challenged payment is customer-initiated (merchant-initiated ones skip 3DS): it refers to none.
        previousSchemeTransactionId: null,
        threeDSecure: ready.threeDs,
        approvalBaseUrl: ctx.deps.config.publicUrl,
        merchantAccountId: ctx.merchantAccountId,
        redirectUrl: null,
      }),
    ctx.log,
  );
  // The service's health (docs/routing.md, "Elimination: the circuit breaker"): memory only.
  if (row.payment_service_id) ctx.deps.breakers.record(ctx.merchantAccountId, row.payment_service_id, result);
  return result;
}

/** Step 3: the answer through the state machine, the attempt, events, webhook. */
async function record(
  ctx: RequestContext,
  ready: Ready,
  result: CallResult<AuthorizeOutcome>,
): Promise<TransactionRow> {
  return withTransaction(ctx.deps.db, async (tx) => {
    const current = (await repo.findTransaction(tx, ctx.merchantAccountId, ready.row.id, { forUpdate: true }))!;
    const now = new Date();
    let applied: Applied | null = null;
    try {
      const outcome = authorizeOutcomeOf(result);
      if (outcome) applied = applyAuthorizeOutcome(ctx, current, outcome, ready.bound.connector, now);
    } catch (error) {
      if (!(error instanceof TransitionError)) throw error;
      // Canceled while the connector was being called: the answer is kept on the attempt only.
      await recordLateAnswer(tx, ctx.deps, ctx.log, current, ready.attemptId, result);
      return current;
    }
    if (ready.storable)
      await storeIfAccepted(
        tx,
        ctx,
        applied,
        ready.storable,
        (current.payment_method ?? {}) as Record<string, unknown>,
        current,
      );
    const row = applied ? await repo.updateTransaction(tx, ctx.merchantAccountId, current.id, applied.patch) : current;
    await schemeTransactionIdWrite(tx, row, ready.lacksSchemeTransactionId, now)?.execute();
    const errorWithoutAnswer = applied ? ((applied.patch.error_code as string | null | undefined) ?? null) : null;
    await repo.updateAttempt(
      tx,
      ctx.merchantAccountId,
      ready.attemptId,
      attemptPatch(
        result,
        applied,
        nextCheckAt(0, now),
        result.ok ? result.value.providerTransactionId : null,
        errorWithoutAnswer,
      ),
    );
    await repo.insertEvents(
      tx,
      [
        statusEvent(row, current.status, now),
        attemptEvent(row, ready.attemptId, 'authorize', row.amount, result, applied, now),
      ].filter((e) => e !== null),
    );
    await emitStatusChange(tx, ctx.deps, current, row);
    if (row.status === 'capture_succeeded') await scheduleSettlement(tx, ctx.deps, row);
    return row;
  });
}

/** The page's "complete": the scenario's result decides what follows (three-d-secure.ts). */
export async function completeChallenge(ctx: RequestContext, challengeId: string): Promise<TransactionRow> {
  const ready = await prepare(ctx, challengeId);
  if (!('attemptId' in ready)) {
    await reverseRedeemed(ctx, ready);
    return ready;
  }
  const result = await authorize(ctx, ready);
  countForSuccessRate(ctx, ready.row, result);
  const row = await record(ctx, ready, result);
  await reverseRedeemed(ctx, row);
  return row;
}

/** The challenge's authorization counts for its service's success rate like any other (docs/routing.md). */
function countForSuccessRate(ctx: RequestContext, row: TransactionRow, result: CallResult<AuthorizeOutcome>): void {
  if (!row.payment_service_id) return;
  const pm = (row.payment_method ?? {}) as { scheme?: string | null; card_type?: string | null; bin?: string | null };
  const keys = dimensionKeys({
    scheme: pm.scheme ?? null,
    currency: row.currency,
    country: row.country,
    cardType: pm.card_type ?? null,
    issuerCountry: pm.bin ? detectSchemes(pm.bin).country : null,
  });
  countAuthorization(
    ctx.deps.routingStats,
    ctx.deps.breakers,
    ctx.merchantAccountId,
    row.payment_service_id,
    keys,
    result,
  );
}
