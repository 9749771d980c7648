import { createHmac, timingSafeEqual } from 'node:crypto';
import type { InboundWebhookRequest } from '../../src/connectors/connector-webhooks.ts';
import { startFakeServer, type FakeAnswer, type FakeRequest, type FakeServer } from './fake-server.ts';

/**
 * A local dLocal Payins API, from dLocal's documented requests and answers (docs.dlocal.com):
 * `POST /payments` (PIX, `PQ`, flow DIRECT: answered PENDING with the PIX code in `ticket`),
 * `GET /payments/{id}`, `POST /payments/{id}/cancel`, `GET /orders/{order_id}`, `POST /refunds`,
 * `GET /refunds/{id}`, `GET /payments-methods?country=BR`. Every request must carry X-Date, X-Login,
 * X-Trans-Key, X-Version 2.1 and `Authorization: V2-HMAC-SHA256, Signature: <hex HMAC-SHA256 of
 * X-Login + X-Date + body>` with the secret key (else 401, code 3001). Errors are dLocal's bodies
 * (`code`, `message`, `param`).
 *
 * The test plays the buyer and dLocal's back office: `pay(id)` marks a pending PIX payment PAID
 * (REJECTED for amount 2005) and returns dLocal's signed notification to its `notification_url`;
 * `settleRefund(id)` does the same for a pending refund. The test posts the notification to our
 * webhook endpoint.
 *
 * Outcomes by the payment's amount (minor units, BRL):
 *
 * | amount | answer |
 * |---|---|
 * | 2005 | PENDING; when the buyer pays: REJECTED (status_code 300) |
 * | 2014 | 400, code 5014 (user blacklisted): declined at creation |
 * | 2409 | the payment is created, then the connection is dropped before the answer |
 * | other | PENDING; PAID when the buyer pays |
 */

export const DLOCAL_FAKE_LOGIN = 'fakeXLogin-svc-test';
export const DLOCAL_FAKE_TRANS_KEY = 'fakeTransKey-0123456789';
export const DLOCAL_FAKE_SECRET = 'fakeSecretKey-abcdefghijklmnopqrstuvwxyz012345';

export interface FakePixPayment {
  id: string;
  amount: number;
  currency: string;
  country: string;
  payment_method_id: string;
  payment_method_type: 'TICKET';
  payment_method_flow: 'DIRECT';
  status: 'PENDING' | 'PAID' | 'REJECTED' | 'CANCELLED' | 'EXPIRED';
  status_code: string;
  status_detail: string;
  order_id: string;
  notification_url: string | null;
  created_date: string;
  ticket: { qr_code: string; image_url: string; expiration_date: string };
  payer: { name: string; email: string; document: string };
}

export interface FakeRefund {
  id: string;
  payment_id: string;
  amount: number;
  currency: string;
  status: 'PENDING' | 'SUCCESS' | 'REJECTED' | 'CANCELLED';
  status_code: string;
  status_detail: string;
  notification_url: string | null;
  created_date: string;
}

export interface DlocalFake extends FakeServer {
  payments: Map<string, FakePixPayment>;
  refunds: Map<string, FakeRefund>;
  /** The next signed call answers this status, once (401: as if the keys were wrong). */
  failNext(status: 401 | 429 | 500): void;
  /** The JSON bodies of the POSTs on a path. */
  bodies(path: string): Array<Record<string, any>>;
  /** The buyer pays the PIX code (REJECTED for amount 2005): dLocal's signed notification of it. */
  pay(paymentId: string, options?: { tamper?: boolean; date?: Date }): InboundWebhookRequest;
  /** The pending refund succeeds (or is rejected): dLocal's signed notification of it. */
  settleRefund(refundId: string, outcome?: 'SUCCESS' | 'REJECTED'): InboundWebhookRequest;
  /** dLocal's signed notification of any object (a payment or a refund), as sent to `url`. */
  notification(
    object: Record<string, unknown>,
    url: string,
    options?: { tamper?: boolean; date?: Date },
  ): InboundWebhookRequest;
  paymentOfOrder(orderId: string): FakePixPayment | null;
}

const sign = (date: string, body: string) =>
  createHmac('sha256', DLOCAL_FAKE_SECRET).update(`${DLOCAL_FAKE_LOGIN}${date}${body}`).digest('hex');
const error = (status: number, code: number, message: string, param?: string): FakeAnswer => ({
  status,
  json: { code, message, ...(param ? { param } : {}) },
});
const STATUS_CODES = { PENDING: '100', PAID: '200', REJECTED: '300', CANCELLED: '400', EXPIRED: '308' } as const;
const DETAILS = {
  PENDING: 'The payment is pending.',
  PAID: 'The payment was paid.',
  REJECTED: 'The payment was rejected.',
  CANCELLED: 'The payment was cancelled.',
  EXPIRED: 'The payment expired.',
} as const;

class DlocalSimulation {
  readonly payments = new Map<string, FakePixPayment>();
  readonly refunds = new Map<string, FakeRefund>();
  fault: 401 | 429 | 500 | null = null;
  url = '';
  private sequence = 0;

  private next(): string {
    this.sequence += 1;
    return `${this.sequence}`.padStart(8, '0');
  }

  /** Whether the request is signed as dLocal requires. */
  private authentic(req: FakeRequest): boolean {
    const h = req.headers;
    const date = h['x-date'];
    const expected = typeof date === 'string' ? sign(date, req.body) : '';
    const given = typeof h.authorization === 'string' ? (h.authorization.split('Signature: ')[1] ?? '') : '';
    return (
      h['x-login'] === DLOCAL_FAKE_LOGIN &&
      h['x-trans-key'] === DLOCAL_FAKE_TRANS_KEY &&
      h['x-version'] === '2.1' &&
      typeof h.authorization === 'string' &&
      h.authorization.startsWith('V2-HMAC-SHA256, Signature: ') &&
      given.length === expected.length &&
      timingSafeEqual(Buffer.from(given), Buffer.from(expected))
    );
  }

  handle(req: FakeRequest): FakeAnswer {
    if (!this.authentic(req)) return error(401, 3001, 'Invalid credentials.');
    if (this.fault) {
      const status = this.fault;
      this.fault = null;
      if (status === 401) return error(401, 3001, 'Invalid credentials.');
      return status === 429 ? error(429, 6000, 'Too many requests.') : error(500, 9999, 'Internal error.');
    }
    const url = new URL(req.path, 'http://fake');
    const parts = url.pathname.split('/').filter(Boolean);
    const body = (req.body ? JSON.parse(req.body) : {}) as Record<string, any>;
    if (req.method === 'GET' && url.pathname === '/payments-methods')
      return url.searchParams.get('country') === 'BR'
        ? {
            status: 200,
            json: [
              { id: 'PQ', type: 'TICKET', name: 'Pix', flow: 'DIRECT', countries: ['BR'] },
              { id: 'BL', type: 'TICKET', name: 'Boleto', flow: 'REDIRECT', countries: ['BR'] },
            ],
          }
        : { status: 200, json: [] };
    if (req.method === 'POST' && url.pathname === '/payments') return this.create(body);
    if (parts[0] === 'payments' && parts[1]) {
      const payment = this.payments.get(parts[1]);
      if (!payment) return error(404, 4000, 'Payment not found.');
      if (req.method === 'GET' && parts.length === 2) return { status: 200, json: payment };
      if (req.method === 'POST' && parts[2] === 'cancel') {
        if (payment.status !== 'PENDING') return error(400, 5002, 'Invalid transaction status.');
        this.setStatus(payment, 'CANCELLED');
        return { status: 200, json: payment };
      }
    }
    if (req.method === 'GET' && parts[0] === 'orders' && parts[1]) {
      const payment = [...this.payments.values()].find((p) => p.order_id === parts[1]);
      if (!payment) return error(404, 4000, 'Order not found.');
      return {
        status: 200,
        json: {
          order_id: payment.order_id,
          payment_id: payment.id,
          currency: payment.currency,
          amount: payment.amount,
          created_date: payment.created_date,
          status: payment.status,
          status_code: payment.status_code,
          status_detail: payment.status_detail,
        },
      };
    }
    if (req.method === 'POST' && url.pathname === '/refunds') return this.refund(body);
    if (req.method === 'GET' && parts[0] === 'refunds' && parts[1]) {
      const refund = this.refunds.get(parts[1]);
      return refund ? { status: 200, json: refund } : error(404, 4000, 'Refund not found.');
    }
    return error(404, 4000, 'Not found.');
  }

  private create(body: Record<string, any>): FakeAnswer {
    for (const field of ['amount', 'currency', 'country', 'payment_method_id', 'payment_method_flow', 'order_id'])
      if (body[field] === undefined) return error(400, 5001, `Invalid param ${field}`, field);
    if (body.payment_method_id !== 'PQ' || body.payment_method_flow !== 'DIRECT')
      return error(400, 5001, 'Invalid param payment_method_id', 'payment_method_id');
    if (body.country !== 'BR' || body.currency !== 'BRL')
      return error(400, 5004, 'Currency not allowed for this country', 'currency');
    const payer = body.payer ?? {};
    if (!payer.name || !payer.email || !/^(\d{11}|\d{14})$/.test(String(payer.document ?? '')))
      return error(400, 5001, 'Invalid param payer.document', 'payer.document');
    if ([...this.payments.values()].some((p) => p.order_id === body.order_id))
      return error(400, 5009, 'Order id is duplicated.', 'order_id');
    const minor = Math.round(Number(body.amount) * 100);
    if (minor === 2014) return error(400, 5014, 'User blacklisted.');
    const id = `D-4-${this.next()}-pix`;
    const payment: FakePixPayment = {
      id,
      amount: Number(body.amount),
      currency: 'BRL',
      country: 'BR',
      payment_method_id: 'PQ',
      payment_method_type: 'TICKET',
      payment_method_flow: 'DIRECT',
      status: 'PENDING',
      status_code: STATUS_CODES.PENDING,
      status_detail: DETAILS.PENDING,
      order_id: String(body.order_id),
      notification_url: body.notification_url ?? null,
      created_date: new Date().toISOString(),
      ticket: {
        qr_code: `00020101021226870014br.gov.bcb.pix2565pix.dlocal.fake/qr/${id}5204000053039865802BR6304ABCD`,
        image_url: `${this.url}/qr/${id}.png`,
        expiration_date: new Date(Date.now() + 24 * 3600 * 1000).toISOString(),
      },
      payer: { name: payer.name, email: payer.email, document: String(payer.document) },
    };
    this.payments.set(id, payment);
    if (minor === 2409) return { drop: true };
    return { status: 200, json: payment };
  }

  private refund(body: Record<string, any>): FakeAnswer {
    const payment = this.payments.get(String(body.payment_id ?? ''));
    if (!payment) return error(404, 4000, 'Payment not found.');
    if (payment.status !== 'PAID') return error(400, 5002, 'Invalid transaction status.');
    const refunded = [...this.refunds.values()]
      .filter((r) => r.payment_id === payment.id && r.status !== 'REJECTED' && r.status !== 'CANCELLED')
      .reduce((sum, r) => sum + Math.round(r.amount * 100), 0);
    const minor =
      body.amount === undefined ? Math.round(payment.amount * 100) - refunded : Math.round(Number(body.amount) * 100);
    if (minor + refunded > Math.round(payment.amount * 100)) return error(400, 5007, 'Amount exceeded.');
    const id = `REF-${this.next()}`;
    const refund: FakeRefund = {
      id,
      payment_id: payment.id,
      amount: minor / 100,
      currency: payment.currency,
      status: 'PENDING',
      status_code: '100',
      status_detail: 'The refund is pending.',
      notification_url: body.notification_url ?? null,
      created_date: new Date().toISOString(),
    };
    this.refunds.set(id, refund);
    return { status: 200, json: refund };
  }

  setStatus(payment: FakePixPayment, status: FakePixPayment['status']): void {
    payment.status = status;
    payment.status_code = STATUS_CODES[status];
    payment.status_detail = DETAILS[status];
  }
}

function notification(
  object: Record<string, unknown>,
  url: string,
  options: { tamper?: boolean; date?: Date } = {},
): InboundWebhookRequest {
  const date = (options.date ?? new Date()).toISOString();
  const body = JSON.stringify(object);
  const signature = sign(date, body);
  const sent = options.tamper ? body.replace('"status":"', '"status": "') : body;
  return {
    headers: {
      'content-type': 'application/json',
      'x-date': date,
      'x-login': DLOCAL_FAKE_LOGIN,
      authorization: `V2-HMAC-SHA256, Signature: ${signature}`,
    },
    rawBody: Buffer.from(sent),
    url,
  };
}

export async function startDlocalFake(): Promise<DlocalFake> {
  const sim = new DlocalSimulation();
  const server = await startFakeServer((req) => sim.handle(req));
  sim.url = server.url;
  return Object.assign(server, {
    payments: sim.payments,
    refunds: sim.refunds,
    failNext: (status: 401 | 429 | 500) => {
      sim.fault = status;
    },
    bodies: (path: string) =>
      server.requests
        .filter((r) => r.method === 'POST' && new URL(r.path, 'http://f').pathname === path)
        .map((r) => JSON.parse(r.body || '{}')),
    pay: (paymentId: string, options: { tamper?: boolean; date?: Date } = {}) => {
      const payment = sim.payments.get(paymentId);
      if (!payment) throw new Error(`no fake dLocal payment ${paymentId}`);
      if (payment.status === 'PENDING')
        sim.setStatus(payment, Math.round(payment.amount * 100) === 2005 ? 'REJECTED' : 'PAID');
      return notification({ ...payment }, payment.notification_url ?? 'https://svc.example/webhooks', options);
    },
    settleRefund: (refundId: string, outcome: 'SUCCESS' | 'REJECTED' = 'SUCCESS') => {
      const refund = sim.refunds.get(refundId);
      if (!refund) throw new Error(`no fake dLocal refund ${refundId}`);
      refund.status = outcome;
      refund.status_code = outcome === 'SUCCESS' ? '200' : '300';
      refund.status_detail = outcome === 'SUCCESS' ? 'The refund was paid.' : 'The refund was rejected.';
      return notification({ ...refund }, refund.notification_url ?? 'https://svc.example/webhooks');
    },
    notification,
    paymentOfOrder: (orderId: string) => [...sim.payments.values()].find((p) => p.order_id === orderId) ?? null,
  });
}
