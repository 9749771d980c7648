import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AuthorizeOutcome } from '../../../connectors/connector.ts';
import type { CallResult } from '../connector-call.ts';
import { nextAttempt, type FailoverPlan } from './failover.ts';

/** What a payment service can do with one authorization, and whether the buyer may have been charged. */
const OUTCOMES = {
  approve: { charged: true },
  captured: { charged: true },
  approval_pending: { charged: true },
  // A provider answered a failure or a decline but handed out its page or code anyway.
  failed_with_approval_url: { charged: true },
  declined_with_approval_url: { charged: true },
  soft_decline: { charged: false },
  insufficient_funds: { charged: false },
  hard_decline: { charged: false },
  technical_failure: { charged: false },
  unreachable_before_send: { charged: false },
  refused_request: { charged: false },
  timeout_after_send: { charged: true },
} as const;
type Kind = keyof typeof OUTCOMES;

const answer = (
  status: AuthorizeOutcome['status'],
  errorCode: string | null,
  approvalUrl: string | null = null,
): CallResult<AuthorizeOutcome> => ({
  ok: true,
  ms: 5,
  value: {
    status,
    errorCode,
    rawResponseCode: null,
    rawResponseDescription: null,
    providerTransactionId: 'p',
    authResponseCode: null,
    avsResponseCode: null,
    cvvResponseCode: null,
    schemeTransactionId: null,
    merchantAdviceCode: null,
    approvalUrl,
    additionalIdentifiers: {},
  },
});

function resultOf(kind: Kind): CallResult<AuthorizeOutcome> {
  switch (kind) {
    case 'approve':
      return answer('authorized', null);
    case 'captured':
      return answer('captured', null);
    case 'approval_pending':
      return answer('buyer_approval_pending', null);
    case 'failed_with_approval_url':
      return answer('failed', 'service_error', 'https://provider.example/approve/1');
    case 'declined_with_approval_url':
      return answer('declined', 'do_not_honor', 'https://provider.example/approve/1');
    case 'soft_decline':
      return answer('declined', 'do_not_honor');
    case 'insufficient_funds':
      return answer('declined', 'insufficient_funds');
    case 'hard_decline':
      return answer('declined', 'stolen_card');
    case 'technical_failure':
      return answer('failed', 'service_error');
    case 'unreachable_before_send':
      return { ok: false, kind: 'unavailable', message: 'refused', ms: 1 };
    case 'refused_request':
      return { ok: false, kind: 'invalid_request', message: 'bad', ms: 1 };
    case 'timeout_after_send':
      return { ok: false, kind: 'timeout', message: 'no answer', ms: 30_000 };
  }
}

const plan = (overrides: Partial<FailoverPlan> = {}): FailoverPlan => ({
  ruleId: 'r',
  order: ['a', 'b', 'c'],
  maxAttempts: 3,
  deadline: 1_000_000,
  retryOnDeclines: new Set(['do_not_honor']),
  ...overrides,
});

/** Runs a cascade the way the engine does; returns the attempts made (service, outcome). */
function cascade(p: FailoverPlan, outcomes: readonly Kind[], clock: readonly number[]) {
  const made: Array<{ service: string; kind: Kind }> = [];
  let service = p.order[0]!;
  for (let i = 0; i < outcomes.length; i++) {
    made.push({ service, kind: outcomes[i]! });
    const verdict = nextAttempt(p, made.length, resultOf(outcomes[i]!), clock[i] ?? 0);
    if (!verdict.retry) break;
    service = verdict.next;
  }
  return made;
}

const kinds = fc.constantFrom(...(Object.keys(OUTCOMES) as Kind[]));

describe('failover', () => {
  it('never goes on after an outcome that may have charged the buyer, and stays within its bounds', () => {
    fc.assert(
      fc.property(
        fc.array(kinds, { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.integer({ min: 0, max: 2_000_000 }), { maxLength: 6 }),
        (outcomes, maxAttempts, clock) => {
          const p = plan({ maxAttempts });
          const made = cascade(p, outcomes, clock);
          const charged = made.filter((m) => OUTCOMES[m.kind].charged);
          // At most one attempt can have charged, and only the last one made.
          expect(charged.length).toBeLessThanOrEqual(1);
          if (charged.length === 1) expect(made[made.length - 1]).toBe(charged[0]);
          // An unknown outcome stops the cascade.
          const unknown = made.findIndex((m) => m.kind === 'timeout_after_send');
          if (unknown >= 0) expect(unknown).toBe(made.length - 1);
          // Hard declines, and declines the rule does not list, are final.
          const final = made.findIndex((m) => m.kind === 'hard_decline' || m.kind === 'insufficient_funds');
          if (final >= 0) expect(final).toBe(made.length - 1);
          // Within max_attempts and the rule's services, each service tried once.
          expect(made.length).toBeLessThanOrEqual(Math.min(maxAttempts, p.order.length));
          expect(new Set(made.map((m) => m.service)).size).toBe(made.length);
          expect(made.map((m) => m.service)).toEqual(p.order.slice(0, made.length));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('tries the next service after a failure that certainly did not charge', () => {
    expect(nextAttempt(plan(), 1, resultOf('unreachable_before_send'), 0)).toEqual({
      retry: true,
      next: 'b',
      reason: 'service_unreachable',
    });
    expect(nextAttempt(plan(), 2, resultOf('technical_failure'), 0)).toEqual({
      retry: true,
      next: 'c',
      reason: 'service_failed:service_error',
    });
    expect(nextAttempt(plan(), 1, resultOf('soft_decline'), 0)).toEqual({
      retry: true,
      next: 'b',
      reason: 'soft_decline:do_not_honor',
    });
  });

  it('stops at the bounds and says why', () => {
    expect(nextAttempt(plan(), 3, resultOf('technical_failure'), 0)).toEqual({
      retry: false,
      reason: 'max_attempts_reached',
    });
    expect(nextAttempt(plan({ deadline: 10 }), 1, resultOf('technical_failure'), 10)).toEqual({
      retry: false,
      reason: 'time_budget_spent',
    });
    expect(nextAttempt(plan({ order: ['a'] }), 1, resultOf('technical_failure'), 0)).toEqual({
      retry: false,
      reason: 'no_more_payment_services',
    });
    expect(nextAttempt(plan(), 1, resultOf('timeout_after_send'), 0)).toEqual({
      retry: false,
      reason: 'outcome_unknown',
    });
    expect(nextAttempt(plan(), 1, resultOf('hard_decline'), 0)).toEqual({ retry: false, reason: 'hard_decline' });
    expect(
      nextAttempt(plan({ retryOnDeclines: new Set(['do_not_honor', 'stolen_card']) }), 1, resultOf('hard_decline'), 0),
    ).toEqual({ retry: false, reason: 'hard_decline' });
    expect(nextAttempt(plan(), 1, resultOf('insufficient_funds'), 0)).toEqual({
      retry: false,
      reason: 'decline_not_retried',
    });
    expect(
      nextAttempt(plan({ retryOnDeclines: new Set(['insufficient_funds']) }), 1, resultOf('insufficient_funds'), 0)
        .retry,
    ).toBe(true);
    expect(nextAttempt(plan(), 1, resultOf('approve'), 0)).toEqual({ retry: false, reason: 'answered' });
    expect(nextAttempt(plan(), 1, resultOf('approval_pending'), 0)).toEqual({ retry: false, reason: 'buyer_reached' });
  });

  it('never tries another service once an answer reached the buyer, whatever its status', () => {
    for (const kind of ['failed_with_approval_url', 'declined_with_approval_url'] as const)
      expect(nextAttempt(plan(), 1, resultOf(kind), 0)).toEqual({ retry: false, reason: 'buyer_reached' });
  });
});
