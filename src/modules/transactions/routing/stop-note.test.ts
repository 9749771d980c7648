import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AuthorizeOutcome } from '../../../connectors/connector.ts';
import type { CallResult } from '../connector-call.ts';
import { nextAttempt, type FailoverPlan } from './failover.ts';
import { failoverStopNote, stopAction, withStepUpRefusal } from './stop-note.ts';

const answer = (status: AuthorizeOutcome['status'], errorCode: string | null): CallResult<AuthorizeOutcome> => ({
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
    approvalUrl: null,
    additionalIdentifiers: {},
  },
});

const RESULTS: Record<string, CallResult<AuthorizeOutcome>> = {
  authorized: answer('authorized', null),
  captured: answer('captured', null),
  pending: answer('buyer_approval_pending', null),
  soft: answer('declined', 'do_not_honor'),
  hard: answer('declined', 'stolen_card'),
  auth: answer('declined', 'authentication_required'),
  failed: answer('failed', 'service_error'),
  unreachable: { ok: false, kind: 'unavailable', message: 'refused', ms: 1 },
  refused: { ok: false, kind: 'invalid_request', message: 'bad', ms: 1 },
  timeout: { ok: false, kind: 'timeout', message: 'lost', ms: 1 },
};

const plan = (order: string[], maxAttempts: number, skipped: FailoverPlan['skipped'] = []): FailoverPlan => ({
  ruleId: 'r',
  order,
  maxAttempts,
  deadline: 1_000,
  retryOnDeclines: new Set(['do_not_honor']),
  skipped,
});

describe('failoverStopNote', () => {
  it('explains every stop but an approval, with the verdict nextAttempt gave (property)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...Object.keys(RESULTS)),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 0, max: 2_000 }),
        (kind, attempts, maxAttempts, now) => {
          const p = plan(['a', 'b', 'c'].slice(0, Math.max(attempts, 1)), maxAttempts);
          const result = RESULTS[kind]!;
          const verdict = nextAttempt(p, attempts, result, now);
          if (verdict.retry) return;
          const note = failoverStopNote(p, verdict.reason, {
            serviceId: 'a',
            attempt: attempts,
            attemptId: 'x',
            result,
          });
          const approved = kind === 'authorized' || kind === 'captured';
          expect(note === null).toBe(approved);
          if (note) expect(note.no_failover).toBe(verdict.reason);
        },
      ),
    );
  });

  it('names the skipped services only when none was left to try', () => {
    const skipped = [{ payment_service_id: 'b', reason: 'circuit_open' }];
    const last = { serviceId: 'a', attempt: 1, attemptId: 'x', result: RESULTS.soft! };
    const p = plan(['a'], 3, skipped);
    expect(nextAttempt(p, 1, RESULTS.soft!, 0)).toEqual({ retry: false, reason: 'no_more_payment_services' });
    expect(failoverStopNote(p, 'no_more_payment_services', last)).toEqual({
      at: 'a',
      attempt: 1,
      attempt_id: 'x',
      error_code: 'do_not_honor',
      no_failover: 'no_more_payment_services',
      skipped,
    });
    expect(failoverStopNote(p, 'max_attempts_reached', last)).not.toHaveProperty('skipped');
  });

  it("records the attempt's error code as the attempt does", () => {
    const note = (result: CallResult<AuthorizeOutcome>) =>
      failoverStopNote(plan(['a'], 1), 'x', { serviceId: 'a', attempt: 1, attemptId: 'x', result })!.error_code;
    expect(note(RESULTS.unreachable!)).toBe('service_network_error');
    expect(note(RESULTS.refused!)).toBe('service_error');
    expect(note(RESULTS.timeout!)).toBeNull();
  });

  it('adds a refused step-up to the note, and makes a route-transaction action of it', () => {
    const note = failoverStopNote(plan(['a'], 1), 'hard_decline', {
      serviceId: 'a',
      attempt: 1,
      attemptId: 'x',
      result: RESULTS.auth!,
    });
    const refused = withStepUpRefusal(note, 'no_redirect_url')!;
    expect(refused).toMatchObject({ no_failover: 'hard_decline', no_step_up: 'no_redirect_url' });
    expect(withStepUpRefusal(null, 'no_redirect_url')).toBeNull();
    expect(stopAction(refused, 'card-transaction', 'r', new Date(0))).toEqual({
      id: 'route-transaction',
      flow: 'card-transaction',
      rule_id: 'r',
      created_at: '1970-01-01T00:00:00.000Z',
      outcome: { stopped: refused },
    });
  });
});
