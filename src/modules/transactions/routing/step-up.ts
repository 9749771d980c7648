import type { AuthorizeOutcome } from '../../../connectors/connector.ts';
import type { CallResult } from '../connector-call.ts';
import type { FailoverPlan } from './failover.ts';

/**
 * Step-up authentication on retry (docs/routing.md): whether a declined authorization is tried
 * once more with 3DS, and where. Pure, so every reason not to step up is unit- and property-tested
 * on its own (step-up.test.ts); create-transaction.service.ts records and runs what it decides.
 */

/** The decline codes that ask for authentication (STANDARD_ERROR_CODES; each connector's mapping lists its raw codes). */
export const STEP_UP_DECLINES: ReadonlySet<string> = new Set(['authentication_required']);

/** Who authenticates the card at a service: the sandbox 3DS server, or the provider itself when asked. */
export type Authenticator = 'sandbox-3ds-server' | 'payment-service';

/** What the engine knows of the transaction when its last attempt was answered. */
export interface StepUpInput {
  /** The matched route-transaction rule's plan; null when no rule decided (no step-up then, as no failover). */
  plan: FailoverPlan | null;
  result: CallResult<AuthorizeOutcome>;
  /** The service that answered, and how many attempts the transaction has made. */
  serviceId: string;
  attempts: number;
  merchantInitiated: boolean;
  paymentSource: string;
  /** A raw or stored card (not a network token, a wallet token or a redirect method). */
  card: boolean;
  /** The payment method's redirect_url: where the buyer's browser comes back after a challenge. */
  redirectUrl: boolean;
  /** A 3DS result exists already (the merchant's three_d_secure_data, or the sandbox 3DS server ran). */
  threeDsDone: boolean;
  /** The transaction was stepped up before. */
  steppedUp: boolean;
  /** Gift cards pay part of it. */
  giftCards: boolean;
  /** Whether and how a service can authenticate the card (null: it cannot). */
  authenticatorOf: (serviceId: string) => Authenticator | null;
  now: number;
}

export type StepUpVerdict =
  | { stepUp: true; to: string; via: Authenticator; reason: string }
  | { stepUp: false; reason: string };

/** Payment sources with a buyer present who can answer a challenge (`moto`, `recurring`, `installment` have none). */
const BUYER_PRESENT: ReadonlySet<string> = new Set(['ecommerce', 'card_on_file']);

/** Why a decline asking for authentication is not stepped up, or null when it may be. */
function refusal(input: StepUpInput): string | null {
  if (!input.plan) return 'no_rule';
  if (!input.plan.stepUp) return 'not_allowed_by_rule';
  if (input.steppedUp) return 'already_stepped_up';
  if (input.merchantInitiated || !BUYER_PRESENT.has(input.paymentSource)) return 'buyer_not_present';
  if (!input.card) return 'not_a_card';
  if (!input.redirectUrl) return 'no_redirect_url';
  if (input.threeDsDone) return 'already_authenticated';
  if (input.giftCards) return 'gift_cards';
  if (input.now >= input.plan.deadline) return 'time_budget_spent';
  return null;
}

/**
 * Null when the answer does not ask for authentication (nothing to explain). Otherwise: step up at
 * the service that answered when it can authenticate; else at the next service of the rule that
 * can, within `max_attempts`; else a refusal with its reason.
 */
export function stepUpVerdict(input: StepUpInput): StepUpVerdict | null {
  const { result } = input;
  if (!result.ok || result.value.status !== 'declined' || !STEP_UP_DECLINES.has(result.value.errorCode ?? ''))
    return null;
  const reason = result.value.errorCode!;
  const refused = refusal(input);
  if (refused) return { stepUp: false, reason: refused };
  const here = input.authenticatorOf(input.serviceId);
  if (here) return { stepUp: true, to: input.serviceId, via: here, reason };
  const order = input.plan!.order;
  const at = order.indexOf(input.serviceId);
  for (const next of order.slice(at + 1)) {
    const via = input.authenticatorOf(next);
    if (!via) continue;
    if (input.attempts >= input.plan!.maxAttempts) return { stepUp: false, reason: 'max_attempts_reached' };
    return { stepUp: true, to: next, via, reason };
  }
  return { stepUp: false, reason: 'no_service_authenticates' };
}
