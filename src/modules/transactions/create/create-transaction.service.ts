import { withRequestTransaction, type RequestContext } from '../../../context.ts';
import type { TransactionRow } from '../../../db/schema-transactions.ts';
import { withTransaction, type Executor, type Tx } from '../../../db/transaction.ts';
import { invalidField } from '../../../errors/app-error.ts';
import { translatePgError } from '../../../errors/pg-errors.ts';
import { uuidv7 } from '../../../lib/ids.ts';
import { uuidToBase62 } from '../../../lib/base62.ts';
import { auditQuery, recordAudit } from '../../audit-logs/audit-logs.service.ts';
import { credentialsOf } from '../../payment-services/payment-services.service.ts';
import type { PaymentServiceRow } from '../../../db/schema.ts';
import { attemptPatch, authorizeBuyerOf, callConnector, cartLinesOf } from '../connector-call.ts';
import { inboundWebhookUrl } from '../../../connectors/connector-webhooks.ts';
import type { CreateTransactionBody } from '../create-transaction.schema.ts';
import { resolveInstrument, takeHeldCode, type ResolvedInstrument } from './instrument.ts';
import { applyGiftCardsOnly, nextCheckAt, type Applied } from '../outcomes.ts';
import { prepareTransaction, stopWith, type Prepared, type TransactionOrigin } from './prepare-transaction.ts';
import { TransitionError } from '../transaction-status.ts';
import {
  recordTender,
  redeemTender,
  reverseRedeemed,
  reverseTender,
  skipTender,
  type GiftCardTender,
} from '../gift-card-tender.ts';
import { attemptEvent, event, statusEvent } from '../transaction-events.ts';
import type { Transaction } from '../transaction.schema.ts';
import * as repo from '../transactions.repo.ts';
import { emitTransaction, transactionEventWrites } from '../webhook-events.ts';
import { transactionResource } from '../transaction-view.ts';
import { scheduleSettlement, settlementQueries } from '../settlements/settlements.service.ts';
import { scheduleSimulatedEvents, simulatedEventQueries } from '../simulations/simulated-events.ts';
import { mispredicted, predictRow } from '../predicted-row.ts';
import { recordGuarded } from '../guarded-answer.ts';
import { decodeTransactionRow } from '../snapshot-codec.ts';
import { pendChallenge } from '../three-ds/three-ds-challenge.service.ts';
import { recordLateAnswer } from '../void/late-void.service.ts';
import {
  applyAuthorizeOutcome,
  authorizeOutcomeOf,
  schemeTransactionIdWrite,
  storeIfAccepted,
} from './authorization-answer.ts';
import { nextAttempt } from '../routing/failover.ts';
import { failoverStopNote, type StopNote } from '../routing/stop-note.ts';
import { countAuthorization } from '../../routing-stats/count-authorization.ts';
import { failOver } from './failover-attempt.ts';
import { stepUp } from './step-up.ts';
import { stopPatch } from './stop-trace.ts';
import { guardWalletToken } from './wallet-instrument.ts';
import { checkUnpinnedEmbed } from './embed-buyer.ts';
import { authorizationIntent } from '../review/review-hold.ts';
import type { AntiFraudResult } from '../../anti-fraud-services/anti-fraud-decision.service.ts';
import { screenBeforeTransaction } from './screen-before-transaction.ts';

/** Checks of the request that need no database. */
function checkRequest(body: CreateTransactionBody): void {
  if (!body.payment_method) {
    if (!body.gift_cards || body.gift_cards.length === 0)
      throw invalidField(
        'body',
        '/payment_method',
        'payment_method is required unless gift_cards pay the whole amount',
        'missing',
      );
    if (body.store) throw invalidField('body', '/store', 'store needs a payment_method to store');
    return;
  }
  if (body.intent === 'capture' && body.amount === 0)
    throw invalidField('body', '/amount', 'amount must be greater than 0 when intent is capture');
  if (body.async_capture && body.intent !== 'capture')
    throw invalidField('body', '/async_capture', 'async_capture is only allowed with intent capture');
  if (body.buyer_id && body.buyer_external_identifier)
    throw invalidField('body', '/buyer_external_identifier', 'Send buyer_id or buyer_external_identifier, not both');
  const unstorable =
    ['id', 'network-token', 'applepay', 'googlepay', 'paze'].includes(body.payment_method.method) ||
    (body.payment_method.method === 'click-to-pay' && !('number' in body.payment_method));
  if (body.store && unstorable) {
    throw invalidField(
      'body',
      '/store',
      'store must be false or unset when paying with a stored payment method, a network token or a wallet token',
    );
  }
  const firstOfSeries =
    (body.payment_source === 'recurring' || body.payment_source === 'installment') && !body.merchant_initiated;
  if (firstOfSeries && !body.store && body.payment_method.method !== 'id') {
    throw invalidField(
      'body',
      '/store',
      `store must be true for the first, customer-initiated payment of a ${body.payment_source} series (later payments use the stored method)`,
    );
  }
  if (body.three_d_secure_data && body.payment_method.redirect_url) {
    throw invalidField(
      'body',
      '/three_d_secure_data',
      'three_d_secure_data cannot be combined with a redirect_url in payment_method',
    );
  }
}

/** What the creating transaction hands to the connector call. */
interface Started {
  row: TransactionRow;
  attemptId: string;
  /** Null when gift cards pay the whole amount. */
  instrument: ResolvedInstrument | null;
  service: PaymentServiceRow | null;
  credentials: Record<string, string>;
  prepared: Prepared;
  tender: GiftCardTender | null;
  /** The authorize attempt was recorded (no stop was known when the transaction was created). */
  attemptRecorded: boolean;
  /** `store: true` of the request. */
  store: boolean;
  /** What a merchant-initiated payment sends as the previous scheme transaction id (`previousSchemeTransactionIdOf`). */
  previousSchemeTransactionId: string | null;
  /** Authorize attempts made so far (failover and step-up count them). */
  attempts?: number;
  /** The transaction was stepped up (once only). */
  steppedUp?: boolean;
  /** A step-up asks a provider that authenticates cards itself for 3DS (`AuthorizeRequest.requestThreeDs`). */
  requestThreeDs?: boolean;
  /** Why the engine did not go on after the rule's last attempt: added to the actions by the last write. */
  stop?: StopNote | null;
}

/**
 * The scheme transaction id a merchant-initiated payment refers to: the request's
 * `previous_scheme_transaction_id`, else the stored card's `scheme_transaction_id` (its first
 * approved customer-initiated payment's, at whichever provider). A customer-initiated payment
 * sends none, even when the request names one (docs/connectors.md, "Network transaction ids").
 */
export function previousSchemeTransactionIdOf(
  body: Pick<CreateTransactionBody, 'merchant_initiated' | 'previous_scheme_transaction_id'>,
  instrument: Pick<ResolvedInstrument, 'schemeTransactionId'> | null,
): string | null {
  if (!body.merchant_initiated) return null;
  return body.previous_scheme_transaction_id || instrument?.schemeTransactionId || null;
}

/**
 * Phase 1: resolve the instrument (the vault releases the card into memory), the buyer and the
 * route, then record the transaction (`processing`) and the attempt (`in_flight`) before any
 * connector call, so a crash leaves a trace that reconciliation settles. A card or a stored card
 * without gift cards only reads before that one insert (transaction and attempt in one statement),
 * so it runs without BEGIN/COMMIT; the rest (checkout sessions, gift cards) writes more and runs in
 * one database transaction.
 */
async function start(
  ctx: RequestContext,
  body: CreateTransactionBody,
  ipAddress: string | null,
  origin: TransactionOrigin,
): Promise<Started> {
  const method = body.payment_method?.method;
  if ((method === 'card' || method === 'id') && !body.gift_cards?.length) {
    try {
      const started = await record(ctx.deps.db, ctx, body, ipAddress, {
        deferHeldCode: true,
        origin,
        remoteCalls: true,
      });
      // Taken once the transaction exists: a request refused before that leaves the code held.
      await takeHeldCode(ctx.deps.db, ctx, started.instrument!);
      return started;
    } catch (error) {
      // What withTransaction does for the other forms (a reference that vanished meanwhile is a 404).
      throw translatePgError(error);
    }
  }
  // The anti-fraud service is asked before the database transaction opens (decision 0144).
  const id = uuidv7();
  const screened = await screenBeforeTransaction(ctx, body, ipAddress, id);
  return withTransaction(ctx.deps.db, (tx) => record(tx, ctx, body, ipAddress, { origin, id, screened }));
}

async function record(
  db: Executor,
  ctx: RequestContext,
  body: CreateTransactionBody,
  ipAddress: string | null,
  options: {
    deferHeldCode?: boolean;
    origin: TransactionOrigin;
    remoteCalls?: boolean;
    id?: string;
    screened?: AntiFraudResult | null;
  },
): Promise<Started> {
  const instrument = body.payment_method
    ? await resolveInstrument(db, ctx, body.payment_method, { deferHeldCode: options.deferHeldCode ?? false })
    : null;
  const id = options.id ?? uuidv7();
  const prepared = await prepareTransaction(
    db,
    ctx,
    body,
    instrument,
    ipAddress,
    id,
    options.origin,
    options.remoteCalls ?? false,
    options.screened ?? null,
  );
  const attemptId = uuidv7();
  const now = new Date();
  const giftCards = body.gift_cards ?? [];
  const giftCardTotal = giftCards.reduce((sum, card) => sum + card.amount, 0);
  const newRow = {
    ...prepared.columns,
    id,
    merchant_account_id: ctx.merchantAccountId,
    gift_card_amount: giftCardTotal,
    multi_tender: giftCardTotal > 0,
  };
  // A challenged card is authorized when the buyer completes the challenge (three-ds-challenge.service.ts).
  const callsConnector = prepared.stop === null && prepared.service !== null && prepared.challenge === null;
  const attempt = {
    merchant_account_id: ctx.merchantAccountId,
    id: attemptId,
    transaction_id: id,
    operation: 'authorize' as const,
    status: 'in_flight' as const,
    amount: newRow.amount,
    payment_service_id: prepared.service?.id ?? null,
    next_check_at: nextCheckAt(0, now),
  };
  // The idempotency key's binding goes in the same write as the transaction: a retry after a crash
  // resumes it instead of charging again (http/idempotency.ts).
  const bind = ctx.idempotency ? [ctx.idempotency.bindResourceWrite(db, id)] : [];
  // Without gift cards the transaction and its attempt are written in one statement.
  const row =
    callsConnector && giftCards.length === 0
      ? await repo.insertTransactionWithAttempt(db, newRow, attempt, bind)
      : await repo.insertTransaction(db, newRow, bind);
  // A wallet token pays once, and an Apple token only the amount it approved: a refusal rolls all this back.
  if (instrument?.walletToken)
    await guardWalletToken(
      db,
      ctx,
      instrument.walletToken,
      { amount: row.amount - row.gift_card_amount, currency: row.currency },
      row.id,
    );
  // Gift cards always take the database transaction of `start`.
  const tender =
    giftCards.length > 0
      ? await recordTender(db as Tx, ctx, id, giftCards, body.amount, row.buyer_id, instrument === null)
      : null;
  if (callsConnector && giftCards.length > 0) await repo.insertAttempt(db, attempt);
  const credentials = callsConnector ? await credentialsOf(db, ctx.deps, prepared.service!) : {};
  return {
    row,
    attemptId,
    instrument,
    service: prepared.service,
    credentials,
    prepared,
    tender,
    attemptRecorded: callsConnector,
    store: body.store ?? false,
    previousSchemeTransactionId: previousSchemeTransactionIdOf(body, instrument),
  };
}

const connectorOf = (ctx: RequestContext, started: Started) =>
  ctx.deps.connectors.get(started.service!.payment_service_definition_id);

async function authorize(ctx: RequestContext, started: Started) {
  const { row, instrument, prepared } = started;
  const connector = connectorOf(ctx, started);
  const result = await callConnector(
    () =>
      connector.authorize({
        idempotencyKey: started.attemptId,
        credentials: started.credentials,
        options: prepared.connectorOptions,
        reference: uuidToBase62(row.id),
        amount: row.amount - row.gift_card_amount,
        currency: row.currency,
        country: row.country,
        intent: authorizationIntent(row),
        instrument: instrument!.instrument,
        merchantInitiated: row.merchant_initiated,
        isSubsequentPayment: row.is_subsequent_payment,
        paymentSource: row.payment_source,
        previousSchemeTransactionId: started.previousSchemeTransactionId,
        threeDSecure: prepared.threeDs?.data ?? null,
        ...(started.requestThreeDs ? { requestThreeDs: true } : {}),
        approvalBaseUrl: ctx.deps.config.publicUrl,
        merchantAccountId: ctx.merchantAccountId,
        redirectUrl: instrument!.redirectUrl,
        buyer: authorizeBuyerOf(row.buyer),
        cartItems: cartLinesOf(row.cart_items),
        notificationUrl: inboundWebhookUrl(ctx.deps.config.publicUrl, ctx.merchantAccountId, started.service!.id),
      }),
    ctx.log,
  );
  // Every authorization of POST /transactions passes here, failover attempts included: its answer
  // feeds the success rates (in memory; written in batches, docs/routing.md).
  countAuthorization(
    ctx.deps.routingStats,
    ctx.deps.breakers,
    ctx.merchantAccountId,
    started.service!.id,
    prepared.routingKeys,
    result,
  );
  // The service's health (docs/routing.md, "Elimination: the circuit breaker"): memory only.
  ctx.deps.breakers.record(ctx.merchantAccountId, started.service!.id, result);
  return result;
}

type Answer = Awaited<ReturnType<typeof authorize>>;

/**
 * Failover (docs/routing.md): while the matched rule's plan says the last answer certainly did not
 * charge the buyer, move the transaction to the next service (failover-attempt.ts records the
 * failed attempt and the next one first) and authorize there. Returns the last answer; `started`
 * then names the last attempt and its service.
 */
async function cascade(ctx: RequestContext, started: Started, first: Answer): Promise<Answer> {
  const plan = started.prepared.plan;
  let result = first;
  started.attempts = 1;
  for (let attempts = 1; plan && started.attemptRecorded; attempts++) {
    const verdict = nextAttempt(plan, attempts, result, Date.now());
    const last = { serviceId: started.service!.id, attempt: attempts, attemptId: started.attemptId, result };
    if (!verdict.retry) {
      started.stop = failoverStopNote(plan, verdict.reason, last);
      break;
    }
    const next = await failOver(
      ctx,
      { row: started.row, attemptId: started.attemptId, result },
      verdict.next,
      verdict.reason,
      attempts,
      started.prepared.flow!,
      plan.ruleId,
    );
    if (!next) {
      started.stop = failoverStopNote(plan, 'next_payment_service_unavailable', last);
      break;
    }
    Object.assign(started, {
      row: next.row,
      attemptId: next.attemptId,
      service: next.service,
      credentials: next.credentials,
    });
    started.prepared.service = next.service;
    started.prepared.connectorOptions =
      (started.row.connection_options?.[next.service.payment_service_definition_id] as
        | Record<string, unknown>
        | undefined) ?? null;
    result = await authorize(ctx, started);
    started.attempts = attempts + 1;
  }
  return result;
}

/**
 * Phase 3 in the common case, a plain answer while the transaction is still `processing`: one
 * statement (src/db/write-batch.ts, `runGuardedWrites`) updates the transaction only if it is still
 * `processing` and writes the attempt's answer, the history events, the audit entry, the webhook
 * outbox and (for a capture) the settlement job with it; no BEGIN/COMMIT, no row read first. Those
 * writes are rendered from the row the update will leave (predicted-row.ts). With an
 * idempotency key the response, rendered from that row too, is stored by the same statement.
 * Null sends everything else (a stop, gift cards, `store`, a timeout, a transaction that moved
 * meanwhile, writes that cannot share a statement) down the locked path of `finish`; nothing was
 * written then.
 */
async function finishQuickly(ctx: RequestContext, started: Started, result: Answer): Promise<Transaction | null> {
  if (started.prepared.stop || !started.service || !started.attemptRecorded || started.tender || started.store)
    return null;
  const outcome = authorizeOutcomeOf(result);
  if (!outcome) return null;
  const db = ctx.deps.db;
  const now = new Date();
  const applied = applyAuthorizeOutcome(ctx, started.row, outcome, connectorOf(ctx, started), now);
  const patch: repo.TransactionPatch = { ...applied.patch, ...stopPatch(started, started.row.actions, now) };
  if (applied.patch.status === 'buyer_approval_pending') patch.approval_expires_at = approvalDeadline(ctx, now);
  const predicted = predictRow(started.row, patch, now);
  const expected = predicted.row;
  const events = [
    antiFraudEventOf(started, now),
    statusEvent(expected, started.row.status, now),
    attemptEvent(expected, started.attemptId, 'authorize', expected.amount, result, applied, now),
  ].filter((e) => e !== null);
  const outbox = await transactionEventWrites(db, ctx.deps, expected, 'transaction.created');
  const settles = expected.status === 'capture_succeeded';
  const schemeId = schemeTransactionIdWrite(db, expected, started.instrument?.lacksSchemeTransactionId ?? false, now);
  // A sandbox simulator's payment now waiting (a PIX code): what its provider reports later.
  const simulated = simulatedEventQueries(db, ctx.deps, expected);
  const writes = [
    attemptUpdate(db, ctx, started, result, applied, now),
    repo.insertEventsQuery(db, events),
    auditQuery(db, ctx, 'created', auditedTransaction(expected)),
    ...outbox,
    ...(settles ? settlementQueries(db, ctx.deps, expected) : []),
    ...simulated,
    ...(schemeId ? [schemeId] : []),
  ];
  const update = repo.updateTransactionIfStatusQuery(
    db,
    ctx.merchantAccountId,
    started.row.id,
    'processing',
    patch,
    now,
  );
  const recorded = await recordGuarded(
    ctx,
    update,
    writes,
    (executor, row) => transactionResource(executor, ctx, decodeTransactionRow(row)),
    { column: 'id', value: started.row.id },
    expected,
  );
  if (!recorded) return null;
  const { value: transaction } = recorded;
  const row = decodeTransactionRow(recorded.row);
  // Webhook deliveries or anti-fraud reports were queued (no subscription: no event at all).
  if (outbox.length > 0 || settles || simulated.length > 0) ctx.deps.queue.pokeSoon();
  // The events and the webhook were rendered from the prediction: say so loudly if it was wrong.
  const wrong = mispredicted(predicted, row);
  if (wrong.length > 0)
    ctx.log.error(
      { transactionId: row.id, columns: wrong },
      'the predicted transaction row differs from the stored one; its events may show stale values',
    );
  return transaction;
}

const auditedTransaction = (row: TransactionRow) => ({
  type: 'transaction',
  id: row.id,
  name: `${row.currency} ${row.amount}`,
});

/** The configured anti-fraud service's decision as a transaction event, written with the answer (no statement of its own). */
const antiFraudEventOf = (started: Started, now: Date) =>
  started.prepared.antiFraudEvent
    ? event(started.row, started.prepared.antiFraudEvent.name, started.prepared.antiFraudEvent.context, now)
    : null;

/** Phase 3, one database transaction: the answer through the state machine, events, audit, idempotency record. */
async function finish(ctx: RequestContext, started: Started, result: Answer | null): Promise<Transaction> {
  const quick = result ? await finishQuickly(ctx, started, result) : null;
  if (quick) return quick;
  return withRequestTransaction(ctx, async (tx) => {
    const current = (await repo.findTransaction(tx, ctx.merchantAccountId, started.row.id, { forUpdate: true }))!;
    const now = new Date();
    let applied: Applied | null = null;
    try {
      if (started.prepared.stop) {
        applied = started.prepared.stop(current);
      } else if (!started.service) {
        applied = applyGiftCardsOnly(current, now);
      } else if (result) {
        const outcome = authorizeOutcomeOf(result);
        if (outcome) applied = applyAuthorizeOutcome(ctx, current, outcome, connectorOf(ctx, started), now);
      }
    } catch (error) {
      if (!(error instanceof TransitionError)) throw error;
      // Canceled while the connector was being called: the answer is kept on the attempt only.
      await recordLateAnswer(tx, ctx.deps, ctx.log, current, started.attemptId, result);
      return transactionResource(tx, ctx, current);
    }
    if (started.store && started.instrument?.storable)
      await storeIfAccepted(tx, ctx, applied, started.instrument.storable, started.instrument.snapshot, current);
    // The buyer has until approval_expires_at; reconciliation times the transaction out after it.
    if (applied?.patch.status === 'buyer_approval_pending')
      applied.patch.approval_expires_at = approvalDeadline(ctx, now);
    const stop = stopPatch(started, current.actions, now);
    const row =
      applied || stop.actions
        ? await repo.updateTransaction(tx, ctx.merchantAccountId, current.id, { ...applied?.patch, ...stop })
        : current;
    await schemeTransactionIdWrite(tx, row, started.instrument?.lacksSchemeTransactionId ?? false, now)?.execute();
    if (!started.prepared.stop && started.attemptRecorded && result)
      await attemptUpdate(tx, ctx, started, result, applied, now).execute();
    // Stopped after the attempt was recorded (a gift card failed): the connector was never called.
    else if (started.attemptRecorded)
      await repo.updateAttempt(tx, ctx.merchantAccountId, started.attemptId, {
        status: 'failed',
        error_code: 'not_attempted',
        next_check_at: null,
      });
    const events = [antiFraudEventOf(started, now), statusEvent(row, current.status, now)];
    if (!started.prepared.stop && started.attemptRecorded)
      events.push(attemptEvent(row, started.attemptId, 'authorize', row.amount, result, applied, now));
    await repo.insertEvents(
      tx,
      events.filter((e) => e !== null),
    );
    await recordAudit(tx, ctx, 'created', auditedTransaction(row));
    await emitTransaction(tx, ctx.deps, row, 'transaction.created');
    if (row.status === 'capture_succeeded') await scheduleSettlement(tx, ctx.deps, row);
    if (row !== current) await scheduleSimulatedEvents(tx, ctx.deps, row);
    return await transactionResource(tx, ctx, row);
  });
}

/** The update that records the connector's answer on the authorize attempt. */
function attemptUpdate(
  tx: Executor,
  ctx: RequestContext,
  started: Started,
  result: Answer,
  applied: Applied | null,
  now: Date,
) {
  // A buyer approval is looked at again when it expires; other open calls on the reconciliation schedule.
  const nextCheck =
    applied?.patch.status === 'buyer_approval_pending' ? approvalDeadline(ctx, now) : nextCheckAt(0, now);
  const errorWithoutAnswer = applied ? ((applied.patch.error_code as string | null | undefined) ?? null) : null;
  return repo.updateAttemptQuery(
    tx,
    ctx.merchantAccountId,
    started.attemptId,
    attemptPatch(result, applied, nextCheck, result.ok ? result.value.providerTransactionId : null, errorWithoutAnswer),
  );
}

/** When a pending buyer approval expires (BUYER_APPROVAL_TIMEOUT_SECONDS after the authorization). */
const approvalDeadline = (ctx: RequestContext, now: Date) =>
  new Date(now.getTime() + ctx.deps.config.buyerApprovalTimeoutSeconds * 1000);

/** `POST /transactions`: record, call the connector outside any database transaction, record the answer. */
/** `ipAddress`: the buyer's address, the first of X-Forwarded-For; `origin`: a payment link it pays. */
export async function createTransaction(
  ctx: RequestContext,
  body: CreateTransactionBody,
  ipAddress: string | null = null,
  origin: TransactionOrigin = {},
): Promise<Transaction> {
  checkRequest(body);
  checkUnpinnedEmbed(ctx, body);
  const started = await start(ctx, body, ipAddress, origin);
  if (started.tender && started.prepared.stop) await skipTender(ctx, started.tender);
  else if (started.tender) {
    const giftCardError = await redeemTender(ctx, started.tender, started.row.currency);
    if (giftCardError) started.prepared.stop = stopWith(giftCardError);
  }
  if (started.prepared.challenge && !started.prepared.stop) return pendChallenge(ctx, started);
  const first = started.prepared.stop || !started.service ? null : await authorize(ctx, started);
  const cascaded = first ? await cascade(ctx, started, first) : null;
  const stepped = cascaded ? await stepUp(ctx, started, cascaded, (again) => authorize(ctx, again as Started)) : null;
  if (stepped && 'challenge' in stepped) return stepped.challenge;
  const result = stepped ? stepped.answer : null;
  // The payment method was refused: what the gift cards paid goes back to them.
  if (
    started.tender &&
    result &&
    (!result.ok ? result.kind !== 'timeout' : result.value.status === 'declined' || result.value.status === 'failed')
  )
    await reverseTender(ctx, started.tender);
  const transaction = await finish(ctx, started, result);
  // Declines of the provider, anti-fraud or 3DS count for velocity; the rules' own early declines do not.
  if (transaction.status === 'authorization_declined' && transaction.error_code !== 'flow_decline')
    started.prepared.velocity?.recordDecline();
  // The card-testing guard counts the decline, and throttles a source that reached its threshold.
  await started.prepared.cardTesting?.settle(transaction);
  // Canceled while the gift cards or the payment method were being charged: give the cards back
  // (redemptions already reversed above are not succeeded any more, so nothing is reversed twice).
  if (started.tender) await reverseRedeemed(ctx, { ...started.row, status: transaction.status });
  return transaction;
}
