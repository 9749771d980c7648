import { describe, expect, it } from 'vitest';
import type { AuthorizeOutcome } from '../../connectors/connector.ts';
import type { TransactionRow } from '../../db/schema-transactions.ts';
import { applyAuthorization, applyCapture, applyRefund, applyVoid, nextCheckAt } from './outcomes.ts';
import { TransitionError } from './transaction-status.ts';

const now = new Date('2030-01-01T00:00:00Z');

const row = (overrides: Partial<TransactionRow> = {}): TransactionRow =>
  ({
    id: '018f0000-0000-7000-8000-000000000001',
    merchant_account_id: 'ma',
    status: 'processing',
    intent: 'authorize',
    intent_outcome: 'pending',
    amount: 1000,
    authorized_amount: 0,
    capture_limit: 0,
    captured_amount: 0,
    refunded_amount: 0,
    capture_reserved: 0,
    refund_reserved: 0,
    capture_closed: false,
    gift_card_amount: 0,
    ...overrides,
  }) as TransactionRow;

const authorized = (intent: 'authorize' | 'capture' = 'authorize') =>
  row({
    status: intent === 'capture' ? 'capture_succeeded' : 'authorization_succeeded',
    intent,
    intent_outcome: 'succeeded',
    authorized_amount: 1000,
    capture_limit: 1000,
  });

const outcome = (status: AuthorizeOutcome['status'], overrides: Partial<AuthorizeOutcome> = {}): AuthorizeOutcome => ({
  status,
  errorCode: null,
  rawResponseCode: null,
  rawResponseDescription: null,
  providerTransactionId: 'p1',
  authResponseCode: '00',
  avsResponseCode: null,
  cvvResponseCode: 'match',
  schemeTransactionId: 's1',
  merchantAdviceCode: null,
  approvalUrl: null,
  additionalIdentifiers: { authorization_id: 'a1' },
  ...overrides,
});

/** The database checks of migration 0011. */
function checkInvariants(r: TransactionRow) {
  expect(r.captured_amount + r.capture_reserved).toBeLessThanOrEqual(r.capture_limit);
  expect(r.refunded_amount + r.refund_reserved).toBeLessThanOrEqual(r.captured_amount);
  for (const v of [r.captured_amount, r.capture_reserved, r.refunded_amount, r.refund_reserved])
    expect(v).toBeGreaterThanOrEqual(0);
}
const merged = (r: TransactionRow, patch: object) => ({ ...r, ...patch }) as TransactionRow;

describe('happy', () => {
  it('an authorization sets the authorized amount and the capture limit with the allowance', () => {
    const a = applyAuthorization(row(), outcome('authorized'), now, 150);
    expect(a.attemptStatus).toBe('succeeded');
    expect(a.patch).toMatchObject({
      status: 'authorization_succeeded',
      intent_outcome: 'succeeded',
      authorized_amount: 1000,
      capture_limit: 1150,
      authorized_at: now,
      payment_service_transaction_id: 'p1',
      cvv_response_code: 'match',
      additional_identifiers: '{"authorization_id":"a1"}',
    });
    checkInvariants(merged(row(), a.patch));
  });

  it('a capture at authorization captures everything and closes capturing', () => {
    const a = applyAuthorization(row({ intent: 'capture' }), outcome('captured'), now, 150);
    expect(a.patch).toMatchObject({
      status: 'capture_succeeded',
      intent_outcome: 'succeeded',
      authorized_amount: 1000,
      capture_limit: 1000,
      captured_amount: 1000,
      capture_closed: true,
      captured_at: now,
    });
    checkInvariants(merged(row(), a.patch));
  });

  it('a pending capture at authorization reserves the amount', () => {
    const a = applyAuthorization(row({ intent: 'capture' }), outcome('capture_pending'), now, 0);
    expect(a.attemptStatus).toBe('pending');
    expect(a.patch).toMatchObject({
      status: 'capture_pending',
      intent_outcome: 'pending',
      capture_reserved: 1000,
      capture_closed: true,
    });
    checkInvariants(merged(row(), a.patch));
  });

  it('buyer approval keeps the approval URL; declines and failures keep the codes', () => {
    expect(
      applyAuthorization(row(), outcome('buyer_approval_pending', { approvalUrl: 'https://x' }), now, 0).patch,
    ).toMatchObject({ status: 'buyer_approval_pending', intent_outcome: 'pending', approval_url: 'https://x' });
    const declined = applyAuthorization(
      row(),
      outcome('declined', { errorCode: 'do_not_honor', rawResponseCode: '05', rawResponseDescription: 'Do not honor' }),
      now,
      0,
    );
    expect(declined).toMatchObject({
      attemptStatus: 'declined',
      patch: {
        status: 'authorization_declined',
        intent_outcome: 'failed',
        error_code: 'do_not_honor',
        raw_response_code: '05',
        raw_response_description: 'Do not honor',
      },
    });
    expect(declined.patch.authorized_amount).toBeUndefined();
    expect(applyAuthorization(row(), outcome('failed', { errorCode: 'service_error' }), now, 0)).toMatchObject({
      attemptStatus: 'failed',
      patch: { status: 'authorization_failed', error_code: 'service_error' },
    });
  });

  it('a succeeded capture moves the reserved amount to captured', () => {
    const r = { ...authorized(), capture_reserved: 400 };
    const a = applyCapture(
      r,
      { status: 'succeeded', errorCode: null, rawResponseCode: null, rawResponseDescription: null },
      { amount: 400, final: false },
      now,
    );
    expect(a).toMatchObject({
      attemptStatus: 'succeeded',
      patch: { status: 'capture_succeeded', capture_reserved: 0, captured_amount: 400, captured_at: now },
    });
    checkInvariants(merged(r, a.patch));
  });

  it('a pending capture keeps the amount reserved', () => {
    const r = { ...authorized(), capture_reserved: 400 };
    const a = applyCapture(
      r,
      { status: 'pending', errorCode: null, rawResponseCode: null, rawResponseDescription: null },
      { amount: 400, final: true },
      now,
    );
    expect(a.attemptStatus).toBe('pending');
    expect(a.patch).toEqual({ status: 'capture_pending', intent_outcome: 'succeeded' });
  });

  it('a pending further capture of a multi-capture authorization keeps what was captured', () => {
    const r = { ...authorized(), status: 'capture_succeeded' as const, captured_amount: 300, capture_reserved: 200 };
    const a = applyCapture(
      r,
      { status: 'pending', errorCode: null, rawResponseCode: null, rawResponseDescription: null },
      { amount: 200, final: true },
      now,
    );
    expect(a.patch).toMatchObject({ status: 'capture_pending' });
    checkInvariants(merged(r, a.patch));
  });

  it('a refused first final capture releases the reservation and reopens capturing', () => {
    const r = { ...authorized(), capture_reserved: 1000, capture_closed: true };
    const a = applyCapture(
      r,
      { status: 'declined', errorCode: 'x', rawResponseCode: null, rawResponseDescription: null },
      { amount: 1000, final: true },
      now,
    );
    expect(a).toMatchObject({
      attemptStatus: 'declined',
      patch: { status: 'authorization_succeeded', capture_reserved: 0, capture_closed: false },
    });
    expect(
      applyCapture(
        r,
        { status: 'failed', errorCode: 'x', rawResponseCode: null, rawResponseDescription: null },
        { amount: 1000, final: true },
        now,
      ).attemptStatus,
    ).toBe('failed');
  });

  it('a refused capture after earlier captures keeps the transaction captured', () => {
    const r = { ...authorized(), status: 'capture_succeeded' as const, captured_amount: 300, capture_reserved: 200 };
    const a = applyCapture(
      r,
      { status: 'declined', errorCode: 'x', rawResponseCode: null, rawResponseDescription: null },
      { amount: 200, final: false },
      now,
    );
    expect(a.patch).toMatchObject({ status: 'capture_succeeded', capture_reserved: 0 });
    expect(a.patch.captured_amount).toBeUndefined();
  });

  it('voids: succeeded, pending, refused', () => {
    const r = { ...authorized(), capture_closed: true };
    expect(applyVoid(r, { status: 'succeeded' }, now)).toMatchObject({
      attemptStatus: 'succeeded',
      patch: { status: 'authorization_voided', intent_outcome: 'succeeded', voided_at: now },
    });
    expect(applyVoid(r, { status: 'pending' }, now)).toMatchObject({
      attemptStatus: 'pending',
      patch: { status: 'authorization_void_pending' },
    });
    expect(applyVoid(r, { status: 'declined' }, now)).toMatchObject({
      attemptStatus: 'declined',
      patch: { status: 'authorization_succeeded', capture_closed: false },
    });
    expect(applyVoid({ ...r, status: 'authorization_void_pending' }, { status: 'succeeded' }, now).patch.status).toBe(
      'authorization_voided',
    );
  });

  it('refunds move the reserved amount to refunded, or release it', () => {
    const r = {
      ...authorized(),
      status: 'capture_succeeded' as const,
      captured_amount: 1000,
      refund_reserved: 300,
      refunded_amount: 200,
    };
    expect(applyRefund(r, { status: 'succeeded' }, 300)).toEqual({
      attemptStatus: 'succeeded',
      refundStatus: 'succeeded',
      patch: { refund_reserved: 0, refunded_amount: 500 },
    });
    expect(applyRefund(r, { status: 'processing' }, 300)).toEqual({
      attemptStatus: 'pending',
      refundStatus: 'processing',
      patch: {},
    });
    expect(applyRefund(r, { status: 'declined' }, 300)).toEqual({
      attemptStatus: 'declined',
      refundStatus: 'declined',
      patch: { refund_reserved: 0 },
    });
    expect(applyRefund(r, { status: 'failed' }, 300)).toEqual({
      attemptStatus: 'failed',
      refundStatus: 'failed',
      patch: { refund_reserved: 0 },
    });
  });

  it('reconciliation looks again after 5 minutes, 1 hour, then daily', () => {
    expect(nextCheckAt(0, now).getTime() - now.getTime()).toBe(5 * 60_000);
    expect(nextCheckAt(1, now).getTime() - now.getTime()).toBe(60 * 60_000);
    expect(nextCheckAt(2, now).getTime() - now.getTime()).toBe(24 * 60 * 60_000);
    expect(nextCheckAt(9, now).getTime() - now.getTime()).toBe(24 * 60 * 60_000);
  });
});

describe('errors', () => {
  it('an authorization answer for a transaction that is already final throws', () => {
    expect(() => applyAuthorization(row({ status: 'authorization_failed' }), outcome('authorized'), now, 0)).toThrow(
      TransitionError,
    );
    expect(() => applyAuthorization(row({ status: 'authorization_voided' }), outcome('captured'), now, 0)).toThrow(
      TransitionError,
    );
    // Even the same status: a late failure must not replace a cancel's `canceled` code.
    expect(() =>
      applyAuthorization(
        row({ status: 'authorization_failed', error_code: 'canceled' }),
        outcome('failed', { errorCode: 'service_error' }),
        now,
        0,
      ),
    ).toThrow(TransitionError);
    expect(() => applyAuthorization(row({ status: 'authorization_succeeded' }), outcome('authorized'), now, 0)).toThrow(
      TransitionError,
    );
  });

  it('a capture answer for a voided transaction throws', () => {
    expect(() =>
      applyCapture(
        row({ status: 'authorization_voided' }),
        { status: 'succeeded', errorCode: null, rawResponseCode: null, rawResponseDescription: null },
        { amount: 0, final: true },
        now,
      ),
    ).toThrow(TransitionError);
  });

  it('a void answer for a captured transaction throws', () => {
    expect(() => applyVoid({ ...authorized('capture') }, { status: 'succeeded' }, now)).toThrow(TransitionError);
    expect(() => applyVoid(row({ status: 'authorization_declined' }), { status: 'pending' }, now)).toThrow(
      TransitionError,
    );
  });
});
