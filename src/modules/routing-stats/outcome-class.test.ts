import { describe, expect, it } from 'vitest';
import type { AuthorizeOutcome } from '../../connectors/connector.ts';
import { STANDARD_ERROR_CODES } from '../../connectors/error-codes.ts';
import { HARD_DECLINES } from '../flows/flow-decisions.ts';
import { CARD_CAUSED_DECLINES, classifyAuthorization } from './outcome-class.ts';

const answer = (status: AuthorizeOutcome['status'], errorCode: string | null = null) =>
  ({ ok: true, ms: 1, value: { status, errorCode } as AuthorizeOutcome }) as const;

describe('classifyAuthorization', () => {
  it('counts approvals as successes, and a pending buyer approval not at all', () => {
    expect(classifyAuthorization(answer('authorized'))).toBe('success');
    expect(classifyAuthorization(answer('captured'))).toBe('success');
    expect(classifyAuthorization(answer('capture_pending'))).toBe('success');
    expect(classifyAuthorization(answer('buyer_approval_pending'))).toBeNull();
  });

  it('never counts a decline the card caused: every hard decline, insufficient funds, wrong details', () => {
    for (const code of [...HARD_DECLINES, 'insufficient_funds', 'expired_card', 'incorrect_cvv', 'invalid_card_number'])
      expect(classifyAuthorization(answer('declined', code)), code).toBeNull();
  });

  it('counts soft declines and unknown decline codes as declines; failures, timeouts and unreachable services as errors', () => {
    for (const code of ['do_not_honor', 'issuer_unavailable', 'try_again_later', 'processing_error', 'xyz', null])
      expect(classifyAuthorization(answer('declined', code)), String(code)).toBe('decline');
    expect(classifyAuthorization(answer('failed', 'service_error'))).toBe('error');
    for (const kind of ['timeout', 'unavailable', 'invalid_request'] as const)
      expect(classifyAuthorization({ ok: false, kind, message: '', ms: 1 })).toBe('error');
  });

  it('classifies every standard issuer decline code one way or the other, on purpose', () => {
    const soft = [
      'do_not_honor',
      'try_again_later',
      'issuer_unavailable',
      'blocked_by_risk_rules',
      'currency_not_supported',
    ];
    const issuer = STANDARD_ERROR_CODES.slice(0, STANDARD_ERROR_CODES.indexOf('refund_declined'));
    for (const code of issuer) expect(CARD_CAUSED_DECLINES.has(code) || soft.includes(code), code).toBe(true);
  });
});
