import type { AuthorizeOutcome } from '../../../connectors/connector.ts';
import type { RequestContext } from '../../../context.ts';
import type { PaymentServiceRow } from '../../../db/schema.ts';
import type { TransactionRow } from '../../../db/schema-transactions.ts';
import { isProduction } from '../../../errors/sandbox-only.ts';
import { listRoutablePaymentServices } from '../../payment-services/payment-services.service.ts';
import type { CallResult } from '../connector-call.ts';
import type { GiftCardTender } from '../gift-card-tender.ts';
import { STEP_UP_DECLINES, stepUpVerdict } from '../routing/step-up.ts';
import { authenticatorOf } from '../routing/step-up-authenticator.ts';
import { withStepUpRefusal, type StopNote } from '../routing/stop-note.ts';
import { pendChallenge } from '../three-ds/three-ds-challenge.service.ts';
import type { ThreeDsDecision } from '../three-ds/three-d-secure.ts';
import type { Transaction } from '../transaction.schema.ts';
import type { ResolvedInstrument } from './instrument.ts';
import type { Prepared } from './prepare-transaction.ts';
import { recordStepUp, StepUpAbandoned, stepUpThreeDs, stepUpWrites, type StepUpDecision } from './step-up-attempt.ts';

type Answer = CallResult<AuthorizeOutcome>;

/** What the creating transaction (create-transaction.service.ts `Started`) hands to a step-up, and what the step-up moves. */
export interface StepUpStarted {
  row: TransactionRow;
  attemptId: string;
  instrument: ResolvedInstrument | null;
  service: PaymentServiceRow | null;
  credentials: Record<string, string>;
  prepared: Prepared;
  tender: GiftCardTender | null;
  attemptRecorded: boolean;
  store: boolean;
  attempts?: number;
  steppedUp?: boolean;
  requestThreeDs?: boolean;
  /** Why the engine did not go on (routing/stop-note.ts): a refused step-up adds its reason, a step-up removes it. */
  stop?: StopNote | null;
}

/**
 * Step-up authentication on retry (docs/routing.md): a decline asking for authentication, where
 * the rule allows it, is tried once more with 3DS. `challenge`: the buyer was sent to the sandbox
 * challenge (the transaction is answered); `answer`: the answer to finish with (the step-up's, or
 * the declined one when no step-up happened or its 3DS ended it).
 */
export async function stepUp(
  ctx: RequestContext,
  started: StepUpStarted,
  result: Answer,
  authorize: (started: StepUpStarted) => Promise<Answer>,
): Promise<{ challenge: Transaction } | { answer: Answer }> {
  const { prepared, instrument } = started;
  const plan = prepared.plan;
  if (!plan?.stepUp || !started.attemptRecorded || !started.service || !instrument) return { answer: result };
  // The common case costs nothing more: only a decline asking for authentication reads the services.
  if (!result.ok || !STEP_UP_DECLINES.has(result.value.errorCode ?? '')) return { answer: result };
  const rows = await listRoutablePaymentServices(ctx.deps.db, ctx.deps, ctx.merchantAccountId);
  const production = isProduction(ctx.deps.config);
  const verdict = stepUpVerdict({
    plan,
    result,
    serviceId: started.service.id,
    attempts: started.attempts ?? 1,
    merchantInitiated: started.row.merchant_initiated,
    paymentSource: started.row.payment_source,
    card: instrument.instrument.kind === 'card',
    redirectUrl: instrument.redirectUrl !== null,
    threeDsDone: prepared.threeDs !== null,
    steppedUp: started.steppedUp === true,
    giftCards: started.tender !== null,
    authenticatorOf: (id) => authenticatorOf(ctx.deps.connectors, rows, id, production),
    now: Date.now(),
  });
  if (verdict && !verdict.stepUp) started.stop = withStepUpRefusal(started.stop ?? null, verdict.reason);
  if (!verdict?.stepUp || !result.ok) return { answer: result };
  const threeDs =
    verdict.via === 'sandbox-3ds-server' ? await stepUpThreeDs(ctx.deps.db, ctx, started.row, instrument) : null;
  const decision: StepUpDecision = {
    from: started.service.id,
    to: verdict.to,
    via: verdict.via,
    reason: verdict.reason,
    attemptId: started.attemptId,
    rawResponseCode: result.value.rawResponseCode,
    attempt: started.attempts ?? 1,
    authentication: threeDs ? authenticationOf(threeDs) : null,
    flow: prepared.flow!,
    ruleId: plan.ruleId,
  };
  const declined = { attemptId: started.attemptId, result };
  if (threeDs?.kind === 'challenge' && threeDs.challenge) {
    try {
      const challenge = threeDs.challenge;
      return {
        challenge: await pendChallenge(
          ctx,
          { ...started, prepared: { ...prepared, challenge } },
          async (tx, current) => {
            const writes = await stepUpWrites(tx, ctx, current, declined, decision, threeDs, 'challenge');
            return writes.row;
          },
        ),
      };
    } catch (error) {
      if (!(error instanceof StepUpAbandoned)) throw error;
      return { answer: result };
    }
  }
  const retry = !threeDs || threeDs.kind === 'authenticated';
  const recorded = await recordStepUp(ctx, started.row.id, declined, decision, threeDs, retry ? 'retry' : 'ended');
  if (!recorded) return { answer: result };
  // The step-up's action says what happened next: no stop note after it.
  started.stop = null;
  started.row = recorded.row;
  started.steppedUp = true;
  started.requestThreeDs = verdict.via === 'payment-service';
  if (!retry) return { answer: result };
  Object.assign(started, {
    attemptId: recorded.attemptId!,
    service: recorded.service,
    credentials: recorded.credentials,
  });
  prepared.service = recorded.service;
  prepared.threeDs = threeDs;
  prepared.connectorOptions =
    (started.row.connection_options?.[recorded.service.payment_service_definition_id] as
      | Record<string, unknown>
      | undefined) ?? null;
  started.attempts = (started.attempts ?? 1) + 1;
  return { answer: await authorize(started) };
}

/** The sandbox 3DS server's answer in the step-up's trace. */
const authenticationOf = (threeDs: ThreeDsDecision): string =>
  threeDs.kind === 'challenge'
    ? 'challenge'
    : threeDs.kind === 'authenticated'
      ? 'frictionless'
      : threeDs.kind === 'failed'
        ? 'declined'
        : 'unavailable';
