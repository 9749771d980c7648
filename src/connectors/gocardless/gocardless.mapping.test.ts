import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConnectorError } from '../connector.ts';
import { fromGoCardlessAmount, toGoCardlessAmount } from './gocardless.amounts.ts';
import {
  conflictingIdOf,
  declineOf,
  httpError,
  mandateStateOf,
  paymentStateOf,
  refundStateOf,
} from './gocardless.mapping.ts';
import { parseGoCardlessWebhook, signatureValid } from './gocardless.webhooks.ts';
import { GoCardlessClient } from './gocardless.client.ts';

const gcError = (type: string, reason: string, links?: Record<string, string>) => ({
  error: {
    type,
    code: 422,
    message: 'm',
    request_id: 'RQ1',
    errors: [{ reason, message: reason, ...(links ? { links } : {}) }],
  },
});

describe('happy', () => {
  it('takes amounts in minor units as GoCardless does (pence, cents, öre)', () => {
    expect(toGoCardlessAmount(1050, 'GBP')).toBe(1050);
    expect(toGoCardlessAmount(1, 'SEK')).toBe(1);
    expect(fromGoCardlessAmount(400, 'EUR')).toBe(400);
  });

  it('maps every documented status, a chargeback leaving the collection collected', () => {
    expect(paymentStateOf('pending_submission')).toBe('pending');
    expect(paymentStateOf('confirmed')).toBe('succeeded');
    expect(paymentStateOf('charged_back')).toBe('succeeded');
    expect(paymentStateOf('customer_approval_denied')).toBe('failed');
    expect(mandateStateOf('pending_submission')).toBe('usable');
    expect(mandateStateOf('suspended_by_payer')).toBe('unusable');
    expect(refundStateOf('paid')).toBe('succeeded');
    expect(refundStateOf('funds_returned')).toBe('failed');
  });

  it("reads the first resource's id from a 409 idempotent_creation_conflict", () => {
    const body = gcError('invalid_state', 'idempotent_creation_conflict', { conflicting_resource_id: 'PM123' });
    expect(conflictingIdOf(409, body)).toBe('PM123');
    expect(conflictingIdOf(422, body)).toBeNull();
  });

  it('checks Webhook-Signature as GoCardless makes it: hex HMAC-SHA256 of the raw body', () => {
    const body = Buffer.from('{"events":[]}');
    const signature = createHmac('sha256', 'secret').update(body).digest('hex');
    expect(signatureValid('secret', body, signature)).toBe(true);
    expect(signatureValid('secret', body, signature.toUpperCase())).toBe(true);
  });
});

describe('errors', () => {
  it('refuses what GoCardless cannot collect exactly: other currencies, zero, fractions', () => {
    expect(() => toGoCardlessAmount(100, 'JPY')).toThrow(ConnectorError);
    expect(() => toGoCardlessAmount(0, 'GBP')).toThrow(ConnectorError);
    expect(() => toGoCardlessAmount(10.5, 'GBP')).toThrow(ConnectorError);
    expect(fromGoCardlessAmount(1.5, 'GBP')).toBeNull();
    expect(fromGoCardlessAmount(100, 'XXX')).toBeNull();
  });

  it('never takes an unknown status for an outcome', () => {
    expect(() => paymentStateOf('paid')).toThrow(ConnectorError);
    expect(() => refundStateOf(undefined)).toThrow(ConnectorError);
  });

  it('turns business refusals into declines and the rest into errors of the right kind', () => {
    expect(declineOf(422, gcError('invalid_state', 'mandate_is_inactive'))).toMatchObject({
      errorCode: 'transaction_not_permitted',
      rawResponseCode: 'mandate_is_inactive',
    });
    expect(declineOf(422, gcError('validation_failed', 'something_else'))).toBeNull();
    expect(httpError(401, {}).kind).toBe('invalid_request');
    expect(httpError(429, {}).kind).toBe('unavailable');
    expect(httpError(503, {}).kind).toBe('timeout');
  });
});

describe('security', () => {
  it('refuses a wrong, short or non-hex signature, and a delivery without a secret, before reading the body', async () => {
    const body = Buffer.from('{"events":[{"id":"EV1"}]}');
    const good = createHmac('sha256', 'secret').update(body).digest('hex');
    expect(signatureValid('other', body, good)).toBe(false);
    expect(signatureValid('secret', body, good.slice(0, 62))).toBe(false);
    expect(signatureValid('secret', body, `${good.slice(0, 62)}zz`)).toBe(false);
    expect(signatureValid('secret', body, undefined)).toBe(false);
    const client = new GoCardlessClient({});
    const request = { headers: { 'webhook-signature': good }, rawBody: body, url: 'https://x.example/w' };
    expect(await parseGoCardlessWebhook(client, {}, request)).toMatchObject({ status: 'rejected' });
    expect(await parseGoCardlessWebhook(client, { webhook_secret: 'other' }, request)).toMatchObject({
      status: 'rejected',
    });
    // A genuine batch with an event of no interest: accepted, no action, no call to GoCardless.
    expect(await parseGoCardlessWebhook(client, { webhook_secret: 'secret' }, request)).toEqual({
      status: 'accepted',
      events: [{ eventId: 'EV1', actions: [] }],
    });
  });
});
