import type { AuthorizeOutcome } from '../../../connectors/connector.ts';
import type { RequestContext } from '../../../context.ts';
import type { PaymentServiceRow } from '../../../db/schema.ts';
import type { TransactionActionJson, TransactionRow } from '../../../db/schema-transactions.ts';
import { withTransaction, type Executor, type Tx } from '../../../db/transaction.ts';
import { uuidv7 } from '../../../lib/ids.ts';
import { credentialsOf, findUsablePaymentService } from '../../payment-services/payment-services.service.ts';
import { matchThreeDsScenario } from '../../three-ds-scenarios/three-ds-scenarios.service.ts';
import { attemptPatch, type CallResult } from '../connector-call.ts';
import { nextCheckAt, type Applied } from '../outcomes.ts';
import type { Authenticator } from '../routing/step-up.ts';
import { decideThreeDs, type ThreeDsDecision } from '../three-ds/three-d-secure.ts';
import { attemptEvent } from '../transaction-events.ts';
import * as repo from '../transactions.repo.ts';
import type { ResolvedInstrument } from './instrument.ts';

/**
 * One step-up (docs/routing.md, "Step-up authentication on retry"), recorded like a failover step
 * (failover-attempt.ts): under the transaction's row lock, the declined attempt's answer, the
 * decision in the transaction's actions (`outcome.step_up`), the 3DS result, and, when the
 * connector is called again at once, the new attempt (`in_flight`, its own id as the idempotency
 * key, so the retry never charges twice). A challenge records the same within the database
 * transaction that sends the buyer to it (three-ds-challenge.service.ts `pendChallenge`).
 */

/** The step-up as the trace shows it. */
export interface StepUpDecision {
  from: string;
  to: string;
  via: Authenticator;
  reason: string;
  /** The declined attempt, its raw code and its number (1-based); the step-up is attempt `attempt + 1`. */
  attemptId: string;
  rawResponseCode: string | null;
  attempt: number;
  /** The sandbox 3DS server's answer: `frictionless`, `challenge`, `declined`, `unavailable`; null when the provider authenticates. */
  authentication: string | null;
  flow: TransactionActionJson['flow'];
  ruleId: string;
}

/** Thrown inside the step-up's database transaction when the transaction is no longer `processing` (canceled meanwhile). */
export class StepUpAbandoned extends Error {
  constructor() {
    super('the transaction is no longer processing: no step-up');
  }
}

/** The sandbox 3DS server's answer for a step-up (a 3DS scenario may force it), whatever `three_d_secure_enabled` or a skip-3ds rule said before. */
export async function stepUpThreeDs(
  db: Executor,
  ctx: RequestContext,
  row: TransactionRow,
  instrument: ResolvedInstrument,
): Promise<ThreeDsDecision> {
  const billing = (row.buyer as { billing_details?: Record<string, string | null> | null } | null)?.billing_details;
  const scenario = await matchThreeDsScenario(db, ctx.deps, ctx.merchantAccountId, {
    amount: row.amount,
    cardNumber: instrument.cardNumber,
    externalIdentifier: row.external_identifier,
    buyer: billing
      ? {
          firstName: billing.first_name ?? null,
          lastName: billing.last_name ?? null,
          emailAddress: billing.email_address ?? null,
        }
      : null,
  });
  return decideThreeDs(
    scenario,
    instrument.cardNumber,
    row.amount,
    `${ctx.merchantAccountId}:${instrument.fingerprint ?? instrument.last4}:${Date.now()}:step-up`,
  );
}

const paymentServiceOf = (service: PaymentServiceRow) =>
  JSON.stringify({
    type: 'payment-service',
    id: service.id,
    payment_service_definition_id: service.payment_service_definition_id,
    method: service.method,
    display_name: service.display_name,
  });

/**
 * `retry`: a new attempt calls the connector at once (frictionless 3DS, or the provider's own 3DS);
 * `challenge`: the buyer is sent to the sandbox challenge first (the attempt starts when they complete it);
 * `ended`: the 3DS server refused or could not authenticate, and the decline stands.
 */
export type StepUpMode = 'retry' | 'challenge' | 'ended';

export interface StepUpWrites {
  row: TransactionRow;
  service: PaymentServiceRow;
  /** The new attempt; null when none starts now (a challenge, or 3DS that ended the step-up). */
  attemptId: string | null;
}

/**
 * The writes of a step-up in the caller's database transaction, the row `current` locked. Throws
 * `StepUpAbandoned` when it is no longer `processing` or the target service vanished.
 */
export async function stepUpWrites(
  tx: Tx,
  ctx: RequestContext,
  current: TransactionRow,
  declined: { attemptId: string; result: CallResult<AuthorizeOutcome> },
  decision: StepUpDecision,
  threeDs: ThreeDsDecision | null,
  mode: StepUpMode,
): Promise<StepUpWrites> {
  if (current.status !== 'processing') throw new StepUpAbandoned();
  const service = await findUsablePaymentService(tx, ctx.merchantAccountId, decision.to);
  if (!service?.active) throw new StepUpAbandoned();
  const now = new Date();
  const applied: Applied = {
    attemptStatus: 'declined',
    eventName: 'payment-connector-response-transaction-declined',
    patch: {},
  };
  const answer = declined.result.ok ? declined.result.value : null;
  // `ended`: the declined attempt stays the transaction's answer, recorded by the usual finish.
  if (mode !== 'ended')
    await repo
      .updateAttemptQuery(
        tx,
        ctx.merchantAccountId,
        declined.attemptId,
        attemptPatch(declined.result, applied, now, answer?.providerTransactionId ?? null, answer?.errorCode ?? null),
      )
      .execute();
  const attemptId = mode === 'retry' ? uuidv7() : null;
  if (attemptId)
    await repo.insertAttempt(tx, {
      merchant_account_id: ctx.merchantAccountId,
      id: attemptId,
      transaction_id: current.id,
      operation: 'authorize',
      status: 'in_flight',
      amount: current.amount,
      payment_service_id: service.id,
      next_check_at: nextCheckAt(0, now),
    });
  const action: TransactionActionJson = {
    id: 'route-transaction',
    flow: decision.flow,
    rule_id: decision.ruleId,
    created_at: now.toISOString(),
    outcome: {
      step_up: {
        from: decision.from,
        reason: decision.reason,
        attempt_id: decision.attemptId,
        error_code: decision.reason,
        raw_response_code: decision.rawResponseCode,
        to: decision.to,
        attempt: decision.attempt + 1,
        authenticated_by: decision.via,
        authentication: decision.authentication,
      },
    },
  };
  const row = await repo.updateTransaction(tx, ctx.merchantAccountId, current.id, {
    actions: JSON.stringify([...current.actions, action]),
    ...(threeDs ? { three_d_secure: JSON.stringify(threeDs.summary) } : {}),
    ...(service.id === current.payment_service_id
      ? {}
      : { payment_service_id: service.id, payment_service: paymentServiceOf(service) }),
  });
  // The declined call's event names the service it went to (the row before any move).
  if (mode !== 'ended')
    await repo.insertEvents(tx, [
      attemptEvent(current, declined.attemptId, 'authorize', current.amount, declined.result, applied, now),
    ]);
  return { row, service, attemptId };
}

/**
 * A step-up of mode `retry` or `ended`, in its own database transaction. Null when the
 * transaction was canceled meanwhile: the caller finishes as without a step-up.
 */
export async function recordStepUp(
  ctx: RequestContext,
  transactionId: string,
  declined: { attemptId: string; result: CallResult<AuthorizeOutcome> },
  decision: StepUpDecision,
  threeDs: ThreeDsDecision | null,
  mode: Exclude<StepUpMode, 'challenge'>,
): Promise<(StepUpWrites & { credentials: Record<string, string> }) | null> {
  try {
    return await withTransaction(ctx.deps.db, async (tx) => {
      const current = (await repo.findTransaction(tx, ctx.merchantAccountId, transactionId, { forUpdate: true }))!;
      const writes = await stepUpWrites(tx, ctx, current, declined, decision, threeDs, mode);
      return { ...writes, credentials: mode === 'retry' ? await credentialsOf(tx, ctx.deps, writes.service) : {} };
    });
  } catch (error) {
    if (error instanceof StepUpAbandoned) return null;
    throw error;
  }
}
