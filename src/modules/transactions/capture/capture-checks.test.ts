import { describe, expect, it } from 'vitest';
import { refusalOf as refusal } from '../../../../test/helpers/refusal.ts';
import { captureBasis, planCapture, relativeAmounts, type CaptureFacts } from './capture-checks.ts';

const authorized: CaptureFacts = {
  status: 'authorization_succeeded',
  authorized_amount: 1000,
  capture_limit: 1000,
  captured_amount: 0,
  capture_reserved: 0,
  capture_closed: false,
};
const multi = { multiCapture: true, incrementalAuthorization: false };
const single = { multiCapture: false, incrementalAuthorization: false };

describe('planCapture', () => {
  it('captures the rest of the authorized amount when the amount is omitted, final by default', () => {
    expect(planCapture(authorized, {}, single)).toEqual({ amount: 1000, final: true });
    expect(
      planCapture(
        { ...authorized, captured_amount: 300, capture_reserved: 200, status: 'capture_succeeded' },
        { final: false },
        multi,
      ),
    ).toEqual({ amount: 500, final: false });
  });

  it('refuses what the state machine refuses, before looking at the connection', () => {
    expect(refusal(() => planCapture({ ...authorized, capture_closed: true }, {}, null))).toMatchObject({
      code: 'bad_request',
      message: expect.stringContaining('final capture or a void'),
    });
    expect(refusal(() => planCapture({ ...authorized, status: 'capture_pending' }, {}, null)).message).toContain(
      'still pending',
    );
    expect(refusal(() => planCapture({ ...authorized, status: 'authorization_declined' }, {}, null)).message).toContain(
      'authorization_declined',
    );
  });

  it('refuses final: false without multi-capture', () => {
    expect(refusal(() => planCapture(authorized, { amount: 100, final: false }, single))).toMatchObject({
      pointer: '/final',
    });
    expect(refusal(() => planCapture(authorized, { amount: 100, final: false }, null))).toMatchObject({
      pointer: '/final',
    });
  });

  it('counts reservations in flight against the limit, and names the headroom of an over-capture', () => {
    const reserved = { ...authorized, capture_reserved: 700 };
    expect(refusal(() => planCapture(reserved, { amount: 301, final: false }, multi))).toMatchObject({
      pointer: '/amount',
      detail: expect.stringContaining('at most 300 remains authorized'),
    });
    expect(planCapture(reserved, { amount: 300, final: false }, multi)).toEqual({ amount: 300, final: false });
    expect(refusal(() => planCapture({ ...authorized, capture_limit: 1100 }, { amount: 1101 }, single))).toMatchObject({
      detail: expect.stringContaining('over-capture included: at most 1100'),
    });
  });

  it('refuses a first capture of 0 that would close the authorization; a later one may close it', () => {
    expect(refusal(() => planCapture(authorized, { amount: 0 }, single))).toMatchObject({
      pointer: '/amount',
      detail: expect.stringContaining('void the transaction'),
    });
    expect(planCapture({ ...authorized, status: 'capture_succeeded', captured_amount: 1000 }, {}, multi)).toEqual({
      amount: 0,
      final: true,
    });
  });
});

describe('captureBasis', () => {
  it('holds every column planCapture reads', () => {
    expect(captureBasis({ ...authorized, id: 'x', refunded_amount: 5 } as CaptureFacts)).toEqual(authorized);
  });
});

describe('relativeAmounts', () => {
  it('turns the capture amounts of a patch into moves, leaving the rest as values', () => {
    const row = { captured_amount: 300, capture_reserved: 500 };
    expect(relativeAmounts(row, { status: 'capture_succeeded', captured_amount: 700, capture_reserved: 100 })).toEqual({
      patch: { status: 'capture_succeeded' },
      add: { captured_amount: 400, capture_reserved: -400 },
    });
    expect(relativeAmounts(row, { status: 'capture_pending' })).toEqual({
      patch: { status: 'capture_pending' },
      add: {},
    });
  });
});
