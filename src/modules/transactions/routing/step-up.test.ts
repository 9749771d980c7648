import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AuthorizeOutcome } from '../../../connectors/connector.ts';
import { HARD_DECLINES } from '../../flows/flow-decisions.ts';
import type { CallResult } from '../connector-call.ts';
import type { FailoverPlan } from './failover.ts';
import { stepUpVerdict, type Authenticator, type StepUpInput } from './step-up.ts';

const plan = (over: Partial<FailoverPlan> = {}): FailoverPlan => ({
  ruleId: 'rule',
  order: ['a', 'b', 'c'],
  maxAttempts: 3,
  deadline: 10_000,
  retryOnDeclines: new Set(['do_not_honor']),
  stepUp: true,
  ...over,
});

const answer = (status: AuthorizeOutcome['status'], errorCode: string | null = null): CallResult<AuthorizeOutcome> =>
  ({
    ok: true,
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
      approvalUrl: null,
      additionalIdentifiers: {},
    },
  }) as CallResult<AuthorizeOutcome>;

const SCA = answer('declined', 'authentication_required');

const input = (over: Partial<StepUpInput> = {}): StepUpInput => ({
  plan: plan(),
  result: SCA,
  serviceId: 'a',
  attempts: 1,
  merchantInitiated: false,
  paymentSource: 'ecommerce',
  card: true,
  redirectUrl: true,
  threeDsDone: false,
  steppedUp: false,
  giftCards: false,
  authenticatorOf: () => 'sandbox-3ds-server',
  now: 0,
  ...over,
});

describe('happy', () => {
  it('steps up at the service that declined when it can authenticate', () => {
    expect(stepUpVerdict(input())).toEqual({
      stepUp: true,
      to: 'a',
      via: 'sandbox-3ds-server',
      reason: 'authentication_required',
    });
  });

  it('else at the next service of the rule that can, within max_attempts', () => {
    const only = (id: string, via: Authenticator) => (s: string) => (s === id ? via : null);
    expect(stepUpVerdict(input({ authenticatorOf: only('c', 'payment-service') }))).toMatchObject({
      stepUp: true,
      to: 'c',
      via: 'payment-service',
    });
    expect(stepUpVerdict(input({ attempts: 3, authenticatorOf: only('c', 'payment-service') }))).toEqual({
      stepUp: false,
      reason: 'max_attempts_reached',
    });
    expect(stepUpVerdict(input({ serviceId: 'c', authenticatorOf: only('b', 'payment-service') }))).toEqual({
      stepUp: false,
      reason: 'no_service_authenticates',
    });
  });
});

describe('not stepped up', () => {
  it.each([
    ['no_rule', { plan: null }],
    ['not_allowed_by_rule', { plan: plan({ stepUp: false }) }],
    ['not_allowed_by_rule', { plan: plan({ stepUp: undefined }) }],
    ['already_stepped_up', { steppedUp: true }],
    ['buyer_not_present', { merchantInitiated: true }],
    ['buyer_not_present', { paymentSource: 'moto' }],
    ['buyer_not_present', { paymentSource: 'recurring' }],
    ['buyer_not_present', { paymentSource: 'installment' }],
    ['not_a_card', { card: false }],
    ['no_redirect_url', { redirectUrl: false }],
    ['already_authenticated', { threeDsDone: true }],
    ['gift_cards', { giftCards: true }],
    ['time_budget_spent', { now: 10_000 }],
  ] as Array<[string, Partial<StepUpInput>]>)('%s', (reason, over) => {
    expect(stepUpVerdict(input(over))).toEqual({ stepUp: false, reason });
  });

  it('has nothing to say about an answer that does not ask for authentication', () => {
    for (const other of [
      answer('authorized'),
      answer('buyer_approval_pending'),
      answer('failed', 'service_error'),
      answer('declined', 'do_not_honor'),
      { ok: false, kind: 'timeout', message: 'x' } as unknown as CallResult<AuthorizeOutcome>,
    ])
      expect(stepUpVerdict(input({ result: other }))).toBeNull();
  });
});

describe('properties', () => {
  const statuses = [
    'authorized',
    'captured',
    'capture_pending',
    'buyer_approval_pending',
    'declined',
    'failed',
  ] as const;
  const codes = [...HARD_DECLINES, 'do_not_honor', 'insufficient_funds', 'try_again_later', null];
  const arbitraryInput = fc.record({
    status: fc.constantFrom(...statuses),
    code: fc.constantFrom(...codes),
    stepUp: fc.boolean(),
    steppedUp: fc.boolean(),
    merchantInitiated: fc.boolean(),
    paymentSource: fc.constantFrom('ecommerce', 'moto', 'recurring', 'installment', 'card_on_file'),
    card: fc.boolean(),
    redirectUrl: fc.boolean(),
    threeDsDone: fc.boolean(),
    attempts: fc.integer({ min: 1, max: 4 }),
    serviceId: fc.constantFrom('a', 'b', 'c'),
    authenticating: fc.subarray(['a', 'b', 'c']),
  });

  it('steps up only a decline asking for authentication, once, with a buyer present, never after 3DS, at a service that authenticates', () => {
    fc.assert(
      fc.property(arbitraryInput, (x) => {
        const verdict = stepUpVerdict(
          input({
            plan: plan({ stepUp: x.stepUp }),
            result: answer(x.status, x.code),
            steppedUp: x.steppedUp,
            merchantInitiated: x.merchantInitiated,
            paymentSource: x.paymentSource,
            card: x.card,
            redirectUrl: x.redirectUrl,
            threeDsDone: x.threeDsDone,
            attempts: x.attempts,
            serviceId: x.serviceId,
            authenticatorOf: (id) => (x.authenticating.includes(id) ? 'payment-service' : null),
          }),
        );
        if (!verdict?.stepUp) return;
        expect(x.status).toBe('declined');
        expect(x.code).toBe('authentication_required');
        expect(x.stepUp && !x.steppedUp && !x.merchantInitiated && x.card && x.redirectUrl && !x.threeDsDone).toBe(
          true,
        );
        expect(['ecommerce', 'card_on_file']).toContain(x.paymentSource);
        expect(x.authenticating).toContain(verdict.to);
        // The same service, or a later one of the rule within max_attempts: never one tried before.
        const order = ['a', 'b', 'c'];
        expect(order.indexOf(verdict.to)).toBeGreaterThanOrEqual(order.indexOf(x.serviceId));
        if (verdict.to !== x.serviceId) expect(x.attempts).toBeLessThan(3);
      }),
    );
  });

  it('no other hard decline is ever stepped up', () => {
    for (const code of HARD_DECLINES.filter((c) => c !== 'authentication_required'))
      expect(stepUpVerdict(input({ result: answer('declined', code) }))).toBeNull();
  });
});
