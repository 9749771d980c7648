import { describe, expect, it } from 'vitest';
import { ConnectorError } from '../connector.ts';
import { STANDARD_ERROR_CODES } from '../error-codes.ts';
import {
  avsOf,
  cardErrorOf,
  cvvOf,
  DECLINE_CODES,
  declineCodeOf,
  httpError,
  paymentStatusOf,
  payoutStatusOf,
} from './checkout.mapping.ts';
import { authorizationOf } from './checkout.payments.ts';
import { parseCheckoutWebhook } from './checkout.webhooks.ts';
import { createHmac } from 'node:crypto';

describe('happy', () => {
  it('maps every decline code onto a standardized error code', () => {
    for (const [code, ours] of Object.entries(DECLINE_CODES)) expect(STANDARD_ERROR_CODES, code).toContain(ours);
    expect(declineCodeOf('20051')).toBe('insufficient_funds');
    expect(declineCodeOf('20005')).toBe('do_not_honor');
    expect(declineCodeOf('20054')).toBe('expired_card');
    expect(declineCodeOf('20087')).toBe('incorrect_cvv');
    expect(declineCodeOf('20154')).toBe('authentication_required');
    expect(declineCodeOf('40101')).toBe('blocked_by_risk_rules');
  });

  it('reads a 202 Pending with a redirect link as the buyer sent to the 3DS page, and an approval by its code', () => {
    const pending = authorizationOf(
      { id: 'pay_1', status: 'Pending', _links: { redirect: { href: 'https://3ds.example/x' } } },
      'authorize',
    );
    expect(pending).toMatchObject({ status: 'buyer_approval_pending', approvalUrl: 'https://3ds.example/x' });
    const approved = authorizationOf(
      {
        id: 'pay_2',
        status: 'Authorized',
        approved: true,
        response_code: '10000',
        source: { avs_check: 'Y', cvv_check: 'Y' },
      },
      'authorize',
    );
    expect(approved).toMatchObject({ status: 'authorized', avsResponseCode: 'match', cvvResponseCode: 'match' });
    expect(authorizationOf({ id: 'pay_3', status: 'Authorized', approved: true }, 'capture').status).toBe(
      'capture_pending',
    );
    expect(payoutStatusOf('Paid')).toBe('succeeded');
    expect(payoutStatusOf('Pending')).toBe('pending');
  });

  it('accepts a webhook signed with the key over the raw body, and maps a dispute to its payment', () => {
    const body = Buffer.from(
      JSON.stringify({
        id: 'evt_1',
        type: 'dispute_received',
        created_on: new Date().toISOString(),
        data: { id: 'dsp_1', payment_id: 'pay_9', amount: 1000, currency: 'USD' },
      }),
    );
    const signature = createHmac('sha256', 'key').update(body).digest('hex');
    const outcome = parseCheckoutWebhook(
      { webhook_signature_key: 'key' },
      { headers: { 'cko-signature': signature }, rawBody: body, url: 'http://x' },
    );
    expect(outcome).toEqual({
      status: 'accepted',
      events: [
        {
          eventId: 'evt_1',
          actions: [
            {
              kind: 'chargeback_opened',
              providerTransactionId: 'pay_9',
              providerReferenceId: 'dsp_1',
              amount: 1000,
              currency: 'USD',
              rawResponseCode: null,
              rawResponseDescription: null,
            },
          ],
        },
      ],
    });
  });
});

describe('errors', () => {
  it('reads an unknown decline code as do_not_honor, never a guess', () => {
    expect(declineCodeOf('29999')).toBe('do_not_honor');
    expect(declineCodeOf(null)).toBe('do_not_honor');
  });

  it('leaves a status it does not know unknown (a timeout for reconciliation), never declined', () => {
    expect(() => paymentStatusOf('Mystery')).toThrow(ConnectorError);
    expect(() => paymentStatusOf('toString')).toThrow(/does not know/);
  });

  it('turns HTTP answers into ConnectorErrors of the right kind, and 422 card errors into declines', () => {
    expect(httpError(401, null).kind).toBe('invalid_request');
    expect(httpError(429, null).kind).toBe('unavailable');
    expect(httpError(502, null).kind).toBe('timeout');
    expect(httpError(422, { error_codes: ['reference_invalid'] }).kind).toBe('invalid_request');
    expect(cardErrorOf(422, { error_codes: ['card_number_invalid'] })).toEqual({
      errorCode: 'invalid_card_number',
      rawCode: 'card_number_invalid',
    });
    expect(cardErrorOf(422, { error_codes: ['reference_invalid'] })).toBeNull();
    expect(avsOf('Q')).toBe('unavailable');
    expect(cvvOf('')).toBeNull();
  });

  it('rejects a webhook with a bad, short or missing signature, or an old created_on', () => {
    const body = Buffer.from(
      JSON.stringify({
        id: 'evt_2',
        type: 'payment_captured',
        created_on: '2020-01-01T00:00:00Z',
        data: { id: 'pay_1' },
      }),
    );
    const good = createHmac('sha256', 'key').update(body).digest('hex');
    const parse = (signature: string | undefined) =>
      parseCheckoutWebhook(
        { webhook_signature_key: 'key' },
        { headers: { 'cko-signature': signature }, rawBody: body, url: 'http://x' },
      );
    expect(parse(good)).toMatchObject({ status: 'rejected', reason: expect.stringContaining('created_on') });
    expect(parse(`${good.slice(0, -2)}zz`)).toMatchObject({ status: 'rejected' });
    expect(parse(good.slice(0, 10))).toMatchObject({ status: 'rejected' });
    expect(parse(undefined)).toMatchObject({ status: 'rejected' });
    expect(parse('0'.repeat(64))).toMatchObject({
      status: 'rejected',
      reason: expect.stringContaining('does not match'),
    });
  });
});
