import { describe, expect, it } from 'vitest';
import { ConnectorError } from '../connector.ts';
import { fromDlocalAmount, toDlocalAmount } from './dlocal.amounts.ts';
import { declineOf, httpError, paymentStateOf, refundStateOf } from './dlocal.mapping.ts';
import { documentOf, paymentBody } from './dlocal.payments.ts';
import { dlocalSignature, signatureOf } from './dlocal.signature.ts';
import { parseDlocalWebhook } from './dlocal.webhooks.ts';
import type { AuthorizeRequest } from '../connector.ts';

const credentials = { x_login: 'login-1', x_trans_key: 'trans-1', secret_key: 'secret-1' };

function notification(object: Record<string, unknown>, date = new Date(), login = 'login-1', secret = 'secret-1') {
  const body = JSON.stringify(object);
  const x = date.toISOString();
  return {
    headers: {
      'x-date': x,
      'x-login': login,
      authorization: `V2-HMAC-SHA256, Signature: ${dlocalSignature(secret, login, x, body)}`,
    },
    rawBody: Buffer.from(body),
    url: 'https://svc.example/webhooks',
  };
}

function request(extra: Partial<AuthorizeRequest> = {}): AuthorizeRequest {
  return {
    idempotencyKey: 'attempt-1',
    credentials,
    options: null,
    reference: 'ref',
    amount: 1050,
    currency: 'BRL',
    country: 'BR',
    intent: 'capture',
    instrument: { kind: 'redirect', method: 'pix', redirectUrl: 'https://m.example', country: 'BR', currency: 'BRL' },
    merchantInitiated: false,
    isSubsequentPayment: false,
    paymentSource: 'ecommerce',
    threeDSecure: null,
    approvalBaseUrl: 'http://localhost',
    buyer: {
      name: 'Ana Souza',
      emailAddress: 'ana@example.com',
      taxId: { value: '12.345.678/0001-95', kind: 'br.cnpj' },
    },
    notificationUrl: 'https://svc.example/n',
    ...extra,
  };
}

describe('amounts', () => {
  it('writes minor units as reais exactly, and refuses what cannot be exact', () => {
    expect(toDlocalAmount(1050, 'BRL')).toBe(10.5);
    expect(toDlocalAmount(1, 'BRL')).toBe(0.01);
    expect(JSON.stringify(toDlocalAmount(123456789, 'BRL'))).toBe('1234567.89');
    expect(() => toDlocalAmount(0, 'BRL')).toThrow(ConnectorError);
    expect(() => toDlocalAmount(10.5, 'BRL')).toThrow(ConnectorError);
    expect(() => toDlocalAmount(10 ** 14, 'BRL')).toThrow(ConnectorError);
  });

  it('reads reais back as minor units, refusing more decimals than the currency has', () => {
    expect(fromDlocalAmount(10.5, 'BRL')).toBe(1050);
    expect(fromDlocalAmount(24.09, 'BRL')).toBe(2409);
    expect(fromDlocalAmount(10.505, 'BRL')).toBeNull();
    expect(fromDlocalAmount('10.50', 'BRL')).toBeNull();
  });
});

describe('statuses and errors', () => {
  it('maps every documented status and leaves an unknown one to reconciliation', () => {
    expect(paymentStateOf('PENDING')).toBe('waiting');
    expect(paymentStateOf('PAID')).toBe('paid');
    expect(paymentStateOf('EXPIRED')).toBe('expired');
    expect(refundStateOf('SUCCESS')).toBe('succeeded');
    const unknown = (() => {
      try {
        paymentStateOf('AUTHORIZED');
      } catch (e) {
        return e;
      }
    })();
    expect(unknown).toBeInstanceOf(ConnectorError);
    expect((unknown as ConnectorError).kind).toBe('timeout');
  });

  it('reads business refusals as declines and HTTP faults as errors of the right kind', () => {
    expect(declineOf(400, { code: 5014, message: 'User blacklisted.' })).toEqual({
      errorCode: 'blocked_by_risk_rules',
      rawResponseCode: '5014',
      rawResponseDescription: 'User blacklisted.',
    });
    expect(declineOf(400, { code: 5001, message: 'Invalid param' })).toBeNull();
    expect(httpError(401, { code: 3001 }).kind).toBe('invalid_request');
    expect(httpError(429, {}).kind).toBe('unavailable');
    expect(httpError(502, {}).kind).toBe('timeout');
  });
});

describe('the payment request', () => {
  it('sends PIX (PQ, DIRECT) with the payer, the attempt id as order_id and our notification address', () => {
    expect(paymentBody(request())).toEqual({
      amount: 10.5,
      currency: 'BRL',
      country: 'BR',
      payment_method_id: 'PQ',
      payment_method_flow: 'DIRECT',
      payer: { name: 'Ana Souza', email: 'ana@example.com', document: '12345678000195' },
      order_id: 'attempt-1',
      description: 'ref',
      notification_url: 'https://svc.example/n',
    });
  });

  it("refuses a payment without the buyer's CPF/CNPJ, another currency, or PIX options it does not build", () => {
    expect(
      documentOf(request({ buyer: { name: 'A', emailAddress: 'a@b.c', taxId: { value: '123', kind: 'br.cpf' } } })),
    ).toBeNull();
    expect(
      documentOf(
        request({ buyer: { name: 'A', emailAddress: 'a@b.c', taxId: { value: '12345678909', kind: 'ar.cuit' } } }),
      ),
    ).toBeNull();
    expect(() => paymentBody(request({ buyer: null }))).toThrow(/CPF or CNPJ/);
    expect(() => paymentBody(request({ currency: 'USD' }))).toThrow(/BRL/);
    expect(() => paymentBody(request({ options: { scheduled_date: '2030-01-01' } }))).toThrow(/not supported/);
  });
});

describe('notifications', () => {
  it('accepts a signed PAID notification as a capture, with an event id of signed fields', () => {
    const outcome = parseDlocalWebhook(
      credentials,
      notification({ id: 'D-4-1', status: 'PAID', amount: 10.5, currency: 'BRL' }),
    );
    expect(outcome).toEqual({
      status: 'accepted',
      events: [
        {
          eventId: 'dlocal:payment:D-4-1:PAID',
          actions: [
            expect.objectContaining({ kind: 'capture_succeeded', providerTransactionId: 'D-4-1', amount: 1050 }),
          ],
        },
      ],
    });
  });

  it('maps refunds and unpaid endings; a pending state asks for nothing', () => {
    const refund = parseDlocalWebhook(
      credentials,
      notification({ id: 'REF-1', payment_id: 'D-4-1', status: 'REJECTED' }),
    );
    expect(refund).toMatchObject({
      events: [
        { eventId: 'dlocal:refund:REF-1:REJECTED', actions: [{ kind: 'refund_failed', providerReferenceId: 'REF-1' }] },
      ],
    });
    const expired = parseDlocalWebhook(credentials, notification({ id: 'D-4-2', status: 'EXPIRED' }));
    expect(expired).toMatchObject({
      events: [{ actions: [{ kind: 'authorization_failed', errorCode: 'authorization_expired' }] }],
    });
    // The same error code as the status query gives (UNPAID_CODE).
    const rejected = parseDlocalWebhook(credentials, notification({ id: 'D-4-4', status: 'REJECTED' }));
    expect(rejected).toMatchObject({
      events: [{ actions: [{ kind: 'authorization_failed', errorCode: 'do_not_honor' }] }],
    });
    expect(parseDlocalWebhook(credentials, notification({ id: 'D-4-3', status: 'PENDING' }))).toMatchObject({
      events: [{ actions: [] }],
    });
  });

  it('rejects another key, another login, an old or future date, and a malformed header', () => {
    const body = { id: 'D-4-1', status: 'PAID' };
    expect(parseDlocalWebhook(credentials, notification(body, new Date(), 'login-1', 'other'))).toMatchObject({
      status: 'rejected',
    });
    expect(parseDlocalWebhook(credentials, notification(body, new Date(), 'login-2', 'secret-1'))).toMatchObject({
      status: 'rejected',
    });
    expect(parseDlocalWebhook(credentials, notification(body, new Date(Date.now() - 4 * 86_400_000)))).toMatchObject({
      status: 'rejected',
    });
    expect(parseDlocalWebhook(credentials, notification(body, new Date(Date.now() + 3_600_000)))).toMatchObject({
      status: 'rejected',
    });
    expect(signatureOf('V2-HMAC-SHA256, Signature: xyz')).toBeNull();
    expect(signatureOf(`HMAC, Signature: ${'a'.repeat(64)}`)).toBeNull();
    expect(signatureOf(`V2-HMAC-SHA256, Signature: ${'A'.repeat(64)}`)).toBe('a'.repeat(64));
  });
});
