import type { AuthorizeOutcome } from '../../connectors/connector.ts';
import type { CallResult } from '../transactions/connector-call.ts';
import type { FailoverPlan } from '../transactions/routing/failover.ts';
import { stepUpVerdict, type Authenticator } from '../transactions/routing/step-up.ts';
import type { DryRunStepUp } from './dry-run.schemas.ts';
import type { RouteOutcome } from './flow-decisions.ts';

/**
 * The dry run's step-up (docs/routing.md, "Dry run"): what the engine would do if the first service
 * tried declined with `authentication_required`, decided by the engine's own `stepUpVerdict` (a
 * decline asking for authentication is a hard decline, never failed over, so the first service is
 * the one that declines). Pure: the caller says what the hypothetical transaction is.
 */
export interface StepUpPreviewInput {
  ruleId: string | null;
  outcome: RouteOutcome | null;
  /** The eligible services in the order they would be tried (the plan's order). */
  eligible: readonly string[];
  merchantInitiated: boolean;
  paymentSource: string;
  card: boolean;
  redirectUrl: boolean;
  /** 3DS before the authorization: the body's three_d_secure_status, or the sandbox 3DS server at the first service. */
  threeDsDone: boolean;
  authenticatorOf: (serviceId: string) => Authenticator | null;
  now: number;
}

/** The answer assumed: a decline asking for authentication (the sandbox card's raw 1A). */
const DECLINE: CallResult<AuthorizeOutcome> = {
  ok: true,
  ms: 0,
  value: {
    status: 'declined',
    errorCode: 'authentication_required',
    rawResponseCode: null,
    rawResponseDescription: null,
    providerTransactionId: null,
    authResponseCode: null,
    avsResponseCode: null,
    cvvResponseCode: null,
    schemeTransactionId: null,
    merchantAdviceCode: null,
    approvalUrl: null,
    additionalIdentifiers: {},
  },
};

/** Null when no service would be tried. Gift cards are not part of a dry run: none is assumed. */
export function stepUpPreview(input: StepUpPreviewInput): DryRunStepUp | null {
  const first = input.eligible[0];
  if (first === undefined) return null;
  const o = input.outcome;
  const plan: FailoverPlan | null =
    o && input.ruleId
      ? {
          ruleId: input.ruleId,
          order: input.eligible,
          maxAttempts: o.max_attempts,
          deadline: input.now + o.time_budget_seconds * 1000,
          retryOnDeclines: new Set(o.retry_on_declines),
          stepUp: o.step_up_on_soft_decline,
        }
      : null;
  const verdict = stepUpVerdict({
    plan,
    result: DECLINE,
    serviceId: first,
    attempts: 1,
    merchantInitiated: input.merchantInitiated,
    paymentSource: input.paymentSource,
    card: input.card,
    redirectUrl: input.redirectUrl,
    threeDsDone: input.threeDsDone,
    steppedUp: false,
    giftCards: false,
    authenticatorOf: input.authenticatorOf,
    now: input.now,
  })!;
  const base = { if_declined_at: first, error_code: 'authentication_required' as const };
  return verdict.stepUp
    ? {
        ...base,
        stepped_up: true,
        to: verdict.to,
        same_service: verdict.to === first,
        authenticated_by: verdict.via,
        refused_because: null,
      }
    : {
        ...base,
        stepped_up: false,
        to: null,
        same_service: null,
        authenticated_by: null,
        refused_because: verdict.reason,
      };
}
