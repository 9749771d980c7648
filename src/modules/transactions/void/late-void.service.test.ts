import { describe, expect, it } from 'vitest';
import { lateVoidAttemptPatch } from './late-void.service.ts';

const now = new Date('2030-01-01T00:00:00Z');
const answer = (status: 'succeeded' | 'pending' | 'declined' | 'failed') => ({
  ok: true as const,
  ms: 5,
  value: {
    status,
    errorCode: status === 'declined' ? 'void_declined' : null,
    rawResponseCode: null,
    rawResponseDescription: null,
  },
});

describe('lateVoidAttemptPatch', () => {
  it('records a final answer with no further check', () => {
    expect(lateVoidAttemptPatch(answer('succeeded'), now)).toMatchObject({
      status: 'succeeded',
      error_code: null,
      next_check_at: null,
    });
    expect(lateVoidAttemptPatch(answer('declined'), now)).toMatchObject({
      status: 'declined',
      error_code: 'void_declined',
      next_check_at: null,
    });
  });

  it('leaves a pending void and a timeout to reconciliation, 5 minutes on', () => {
    expect(lateVoidAttemptPatch(answer('pending'), now)).toMatchObject({
      status: 'pending',
      next_check_at: new Date(now.getTime() + 5 * 60_000),
    });
    expect(lateVoidAttemptPatch({ ok: false, kind: 'timeout', message: 'slow', ms: 30_000 }, now)).toMatchObject({
      status: 'unknown',
      error_code: 'timeout',
      next_check_at: new Date(now.getTime() + 5 * 60_000),
    });
  });

  it('a request that certainly did not complete is failed', () => {
    expect(lateVoidAttemptPatch({ ok: false, kind: 'unavailable', message: 'down', ms: 3 }, now)).toMatchObject({
      status: 'failed',
      error_code: 'unavailable',
      next_check_at: null,
    });
  });
});
