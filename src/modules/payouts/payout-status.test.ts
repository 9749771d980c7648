import { describe, expect, it } from 'vitest';
import { canMove, isOpenAttempt, nextCheckAt, resolveCall, resolveSync } from './payout-status.ts';

const facts = { errorCode: null, rawResponseCode: null, rawResponseDescription: null };
const now = new Date('2026-01-01T00:00:00Z');

describe('happy', () => {
  it('maps each payout answer to the payout and attempt statuses', () => {
    for (const status of ['succeeded', 'declined', 'failed'] as const) {
      expect(resolveCall({ ok: true, value: { ...facts, status, providerPayoutId: 'p' }, ms: 1 })).toMatchObject({
        status,
        attemptStatus: status,
        providerPayoutId: 'p',
        open: false,
      });
    }
    expect(
      resolveCall({ ok: true, value: { ...facts, status: 'pending', providerPayoutId: 'p' }, ms: 1 }),
    ).toMatchObject({ status: 'pending', attemptStatus: 'pending', open: true });
  });

  it('treats a timeout as unknown and a refused or unreachable call as failed', () => {
    expect(resolveCall({ ok: false, kind: 'timeout', message: '', ms: 1 })).toMatchObject({
      status: 'pending',
      attemptStatus: 'unknown',
      open: true,
      errorCode: null,
    });
    expect(resolveCall({ ok: false, kind: 'unavailable', message: '', ms: 1 })).toMatchObject({
      status: 'failed',
      attemptStatus: 'failed',
      open: false,
      errorCode: 'service_network_error',
    });
    expect(resolveCall({ ok: false, kind: 'invalid_request', message: '', ms: 1 })).toMatchObject({
      status: 'failed',
      errorCode: 'service_error',
    });
  });

  it('maps status query answers; pending stays open and not_found failed', () => {
    expect(resolveSync({ ...facts, status: 'pending', providerPayoutId: 'p' })).toBeNull();
    expect(resolveSync({ ...facts, status: 'succeeded', providerPayoutId: 'p' })).toMatchObject({
      status: 'succeeded',
      attemptStatus: 'succeeded',
      open: false,
    });
    expect(
      resolveSync({ ...facts, errorCode: 'do_not_honor', status: 'declined', providerPayoutId: 'p' }),
    ).toMatchObject({ status: 'declined', errorCode: 'do_not_honor' });
    expect(resolveSync({ ...facts, status: 'not_found', providerPayoutId: null })).toMatchObject({
      status: 'failed',
      attemptStatus: 'failed',
      errorCode: 'service_network_error',
    });
  });

  it('moves only a pending payout, never back to pending', () => {
    expect(canMove('pending', 'succeeded')).toBe(true);
    expect(canMove('pending', 'pending')).toBe(false);
    for (const from of ['succeeded', 'declined', 'failed'] as const)
      for (const to of ['pending', 'succeeded', 'declined', 'failed'] as const) expect(canMove(from, to)).toBe(false);
    expect(['in_flight', 'unknown', 'pending'].every((s) => isOpenAttempt(s as never))).toBe(true);
    expect(['succeeded', 'declined', 'failed'].some((s) => isOpenAttempt(s as never))).toBe(false);
  });

  it('schedules checks after 5 minutes, 1 hour, then daily', () => {
    expect(nextCheckAt(0, now).getTime() - now.getTime()).toBe(5 * 60_000);
    expect(nextCheckAt(1, now).getTime() - now.getTime()).toBe(60 * 60_000);
    for (const checks of [2, 3, 10]) expect(nextCheckAt(checks, now).getTime() - now.getTime()).toBe(24 * 60 * 60_000);
  });
});
