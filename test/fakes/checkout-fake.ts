import { createHmac, randomBytes } from 'node:crypto';
import { startFakeServer, type FakeAnswer, type FakeRequest, type FakeServer } from './fake-server.ts';

/**
 * A local Checkout.com Unified Payments API, from Checkout.com's documented requests and answers
 * (api-reference.checkout.com: "Request a payment or payout", "Get payment details", "Get payment
 * actions", "Get payment lists", captures, voids, refunds; www.checkout.com/docs: idempotency,
 * response codes, card payouts, webhooks). It checks the `Authorization: Bearer` secret key, the
 * processing channel, the amount (an integer in Checkout.com's units), and demands a
 * `Cko-Idempotency-Key` on every POST that can move money (stricter than Checkout.com, where the
 * header is optional: the connector must always send the attempt id). A repeated key on the same
 * path replays the first answer, as Checkout.com documents.
 *
 * Payments decide by amount (Checkout.com units):
 *
 * | amount | answer |
 * |---|---|
 * | 2005 | 201 Declined, response_code 20005 |
 * | 2051 | 201 Declined, 20051 (insufficient funds) |
 * | 2054 | 201 Declined, 20054 (expired card) |
 * | 2087 | 201 Declined, 20087 (CVV) |
 * | 2300 | with `3ds.enabled`: 202 Pending, the buyer's page `<fake>/3ds/<id>`; without: 201 Declined 20154 (3DS required) |
 * | 2408 | Authorized, answered after `slowMs` |
 * | 2409 | Authorized, then the connection is dropped before the answer |
 * | other | Authorized (Captured with `capture: true`) |
 *
 * Card number `4000000000000002` (not Luhn-valid): 422 `card_number_invalid`.
 *
 * Card payouts (a `destination`): 202 Pending; read back as `Paid`, except amount 3005 (Declined,
 * 20005), 3051 (Declined, 20051) and 3077 (stays Pending); card `4000000000000572`: 422
 * `card_not_eligible`; amount 3409: made, then the connection is dropped.
 */

export const CHECKOUT_FAKE_KEY = 'sk_sbox_fakesecretkey0000000000000';
export const CHECKOUT_FAKE_CHANNEL = 'pc_abcdefghijklmnopqrstuvwxyz';
export const CHECKOUT_FAKE_ACCOUNT = 'ca_abcdefghijklmnopqrstuvwxyz';

interface Action {
  id: string;
  type: 'Authorization' | 'Capture' | 'Void' | 'Refund' | 'Payout';
  processed_on: string;
  amount: number;
  approved: boolean;
  response_code: string;
  response_summary: string;
  reference?: string;
  metadata?: Record<string, unknown>;
}

export interface FakePayment {
  id: string;
  status: string;
  approved: boolean;
  amount: number;
  currency: string;
  reference: string;
  capture: boolean;
  payout: boolean;
  captured: number;
  refunded: number;
  metadata: Record<string, unknown>;
  successUrl: string | null;
  responseCode: string;
  actions: Action[];
}

export interface CheckoutFake extends FakeServer {
  baseUrl: string;
  payments: Map<string, FakePayment>;
  slowMs: number;
  failNext(status: 401 | 429 | 500): void;
  /** JSON bodies received on POSTs whose path ends with the suffix. */
  bodies(pathSuffix: string): Array<Record<string, any>>;
  /** The buyer finishes (or fails) Checkout.com's 3DS page: the URL the buyer is sent back to. */
  completeThreeDs(paymentId: string, ok: boolean): string;
  /** The payment made under an idempotency key, if any. */
  madeFor(idempotencyKey: string): string | null;
  /** A webhook as Checkout.com signs it: `Cko-Signature` over the exact body. */
  webhook(
    type: string,
    data: Record<string, unknown>,
    signatureKey: string,
    options?: { id?: string; createdOn?: string },
  ): { headers: Record<string, string>; rawBody: Buffer };
}

const DECLINES: Record<number, [string, string]> = {
  2005: ['20005', 'Declined - Do Not Honour'],
  2051: ['20051', 'Insufficient Funds'],
  2054: ['20054', 'Expired Card'],
  2087: ['20087', 'Bad Track Data'],
};
const PAYOUT_DECLINES: Record<number, [string, string]> = {
  3005: ['20005', 'Declined - Do Not Honour'],
  3051: ['20051', 'Insufficient Funds'],
};

const id = (prefix: string) => `${prefix}_${randomBytes(16).toString('hex').slice(0, 26)}`;
const now = () => new Date().toISOString();

class CheckoutSimulation {
  readonly payments = new Map<string, FakePayment>();
  readonly replies = new Map<string, FakeAnswer>();
  readonly byKey = new Map<string, string>();
  fault: 401 | 429 | 500 | null = null;
  slowMs = 1000;
  url = '';

  private view(p: FakePayment): Record<string, unknown> {
    const redirect = p.status === 'Pending' && !p.payout && p.successUrl !== null;
    return {
      id: p.id,
      status: p.status,
      approved: p.approved,
      amount: p.amount,
      currency: p.currency,
      reference: p.reference,
      metadata: p.metadata,
      ...(p.status === 'Authorized' || p.status === 'Captured'
        ? {
            source: { type: 'card', avs_check: 'S', cvv_check: 'Y' },
            scheme_id: '114041543271234',
            auth_code: '770687',
          }
        : {}),
      _links: {
        self: { href: `${this.url}/payments/${p.id}` },
        ...(redirect ? { redirect: { href: `${this.url}/3ds/${p.id}` } } : {}),
      },
    };
  }

  private act(
    p: FakePayment,
    type: Action['type'],
    amount: number,
    body: Record<string, any>,
    approved = true,
  ): Action {
    const action: Action = {
      id: id('act'),
      type,
      processed_on: now(),
      amount,
      approved,
      response_code: approved ? '10000' : p.responseCode,
      response_summary: approved ? 'Approved' : 'Declined',
      ...(body.reference ? { reference: body.reference } : {}),
      ...(body.metadata ? { metadata: body.metadata } : {}),
    };
    p.actions.push(action);
    return action;
  }

  private pay(body: Record<string, any>, key: string): FakeAnswer {
    if (body.processing_channel_id !== CHECKOUT_FAKE_CHANNEL)
      return {
        status: 422,
        json: { request_id: 'req', error_type: 'request_invalid', error_codes: ['processing_channel_id_invalid'] },
      };
    if (!Number.isSafeInteger(body.amount) || body.amount <= 0)
      return {
        status: 422,
        json: { request_id: 'req', error_type: 'request_invalid', error_codes: ['amount_invalid'] },
      };
    if (body.destination) return this.payout(body, key);
    if (body.source?.type !== 'card' || typeof body.source.number !== 'string')
      return {
        status: 422,
        json: { request_id: 'req', error_type: 'request_invalid', error_codes: ['source_invalid'] },
      };
    if (body.source.number === '4000000000000002')
      return {
        status: 422,
        json: { request_id: 'req', error_type: 'request_invalid', error_codes: ['card_number_invalid'] },
      };
    const amount = body.amount as number;
    const decline =
      DECLINES[amount] ?? (amount === 2300 && !body['3ds']?.enabled ? ['20154', '3DS authentication required'] : null);
    const p: FakePayment = {
      id: id('pay'),
      status: 'Authorized',
      approved: true,
      amount,
      currency: body.currency,
      reference: body.reference,
      capture: body.capture !== false,
      payout: false,
      captured: 0,
      refunded: 0,
      metadata: body.metadata ?? {},
      successUrl: body.success_url ?? null,
      responseCode: '10000',
      actions: [],
    };
    this.payments.set(p.id, p);
    this.byKey.set(key, p.id);
    if (amount === 2300 && body['3ds']?.enabled) {
      p.status = 'Pending';
      return { status: 202, json: this.view(p) };
    }
    if (decline) {
      p.status = 'Declined';
      p.approved = false;
      p.responseCode = decline[0];
      this.act(p, 'Authorization', amount, body, false);
      return { status: 201, json: { ...this.view(p), response_code: decline[0], response_summary: decline[1] } };
    }
    this.authorize(p, body);
    const answer: FakeAnswer = {
      status: 201,
      json: { ...this.view(p), response_code: '10000', response_summary: 'Approved', action_id: p.actions[0]?.id },
    };
    if (amount === 2409) return { drop: true };
    if (amount === 2408) return { ...answer, delayMs: this.slowMs };
    return answer;
  }

  private authorize(p: FakePayment, body: Record<string, any>): void {
    p.status = 'Authorized';
    p.approved = true;
    this.act(p, 'Authorization', p.amount, body);
    if (p.capture) {
      p.status = 'Captured';
      p.captured = p.amount;
      this.act(p, 'Capture', p.amount, {});
    }
  }

  private payout(body: Record<string, any>, key: string): FakeAnswer {
    if (body.source?.type !== 'currency_account' || body.source.id !== CHECKOUT_FAKE_ACCOUNT)
      return {
        status: 422,
        json: { request_id: 'req', error_type: 'request_invalid', error_codes: ['source_id_invalid'] },
      };
    if (body.destination.type === 'card' && body.destination.number === '4000000000000572')
      return {
        status: 422,
        json: { request_id: 'req', error_type: 'request_invalid', error_codes: ['card_not_eligible'] },
      };
    if (typeof body.instruction?.funds_transfer_type !== 'string')
      return {
        status: 422,
        json: { request_id: 'req', error_type: 'request_invalid', error_codes: ['funds_transfer_type_required'] },
      };
    const p: FakePayment = {
      id: id('pay'),
      status: 'Pending',
      approved: true,
      amount: body.amount,
      currency: body.currency,
      reference: body.reference,
      capture: false,
      payout: true,
      captured: 0,
      refunded: 0,
      metadata: body.metadata ?? {},
      successUrl: null,
      responseCode: '10000',
      actions: [],
    };
    this.payments.set(p.id, p);
    this.byKey.set(key, p.id);
    if (body.amount === 3409) return { drop: true };
    return {
      status: 202,
      json: {
        id: p.id,
        status: 'Pending',
        reference: p.reference,
        _links: { self: { href: `${this.url}/payments/${p.id}` } },
      },
    };
  }

  /** A payout is processed by the time it is read: Paid, or declined by its amount; 3077 stays pending. */
  private settlePayout(p: FakePayment): void {
    if (!p.payout || p.status !== 'Pending' || p.amount === 3077) return;
    const decline = PAYOUT_DECLINES[p.amount];
    if (decline) {
      p.status = 'Declined';
      p.approved = false;
      p.responseCode = decline[0];
      this.act(p, 'Payout', p.amount, {}, false);
    } else {
      p.status = 'Paid';
      this.act(p, 'Payout', p.amount, {});
    }
  }

  private followUp(p: FakePayment, kind: string, body: Record<string, any>): FakeAnswer {
    const refused = (status: number, code: string): FakeAnswer => ({
      status,
      json: { request_id: 'req', error_type: 'request_invalid', error_codes: [code] },
    });
    if (kind === 'captures') {
      if (p.status !== 'Authorized' && p.status !== 'Partially Captured') return refused(403, 'capture_not_allowed');
      const amount = body.amount ?? p.amount - p.captured;
      if (!Number.isSafeInteger(amount) || amount <= 0 || amount > p.amount - p.captured)
        return refused(422, 'amount_invalid');
      p.captured += amount;
      p.status = p.captured === p.amount || body.capture_type !== 'NonFinal' ? 'Captured' : 'Partially Captured';
      return { status: 202, json: { action_id: this.act(p, 'Capture', amount, body).id, reference: body.reference } };
    }
    if (kind === 'voids') {
      if (p.status !== 'Authorized') return refused(403, 'void_not_allowed');
      p.status = 'Voided';
      return { status: 202, json: { action_id: this.act(p, 'Void', p.amount, body).id, reference: body.reference } };
    }
    const amount = body.amount ?? p.captured - p.refunded;
    if (p.captured === 0) return refused(403, 'refund_not_allowed');
    if (!Number.isSafeInteger(amount) || amount <= 0 || amount > p.captured - p.refunded)
      return refused(422, 'refund_amount_exceeds_balance');
    p.refunded += amount;
    p.status = p.refunded === p.captured ? 'Refunded' : 'Partially Refunded';
    return { status: 202, json: { action_id: this.act(p, 'Refund', amount, body).id, reference: body.reference } };
  }

  handle(req: FakeRequest): FakeAnswer {
    const url = new URL(req.path, 'http://fake');
    if (req.method === 'GET' && url.pathname.startsWith('/3ds/')) return { status: 200, json: { page: '3ds' } };
    if (req.headers.authorization !== `Bearer ${CHECKOUT_FAKE_KEY}`) return { status: 401, json: null };
    if (req.method === 'POST' && this.fault) {
      const status = this.fault;
      this.fault = null;
      return { status, json: status === 401 ? null : { request_id: 'req', error_type: 'fault' } };
    }
    if (req.method === 'GET') {
      if (url.pathname === '/payments') {
        const reference = url.searchParams.get('reference');
        const data = [...this.payments.values()].filter((p) => p.reference === reference);
        for (const p of data) this.settlePayout(p);
        return {
          status: 200,
          json: { limit: 100, skip: 0, total_count: data.length, data: data.map((p) => this.view(p)) },
        };
      }
      const match = /^\/payments\/([^/]+)(\/actions)?$/.exec(url.pathname);
      const p = match ? this.payments.get(match[1]!) : undefined;
      if (!p) return { status: 404, json: null };
      this.settlePayout(p);
      return match![2] ? { status: 200, json: [...p.actions].reverse() } : { status: 200, json: this.view(p) };
    }
    const key = req.headers['cko-idempotency-key'];
    if (typeof key !== 'string' || !key) return { status: 400, json: { error_type: 'fake_missing_idempotency_key' } };
    const replyKey = `${key} ${url.pathname}`;
    const first = this.replies.get(replyKey);
    if (first) return first;
    const body = JSON.parse(req.body || '{}') as Record<string, any>;
    let answer: FakeAnswer;
    if (url.pathname === '/payments') answer = this.pay(body, key);
    else {
      const match = /^\/payments\/([^/]+)\/(captures|voids|refunds)$/.exec(url.pathname);
      const p = match ? this.payments.get(match[1]!) : undefined;
      answer = p ? this.followUp(p, match![2]!, body) : { status: 404, json: null };
    }
    if (!('drop' in answer)) this.replies.set(replyKey, answer);
    return answer;
  }
}

export async function startCheckoutFake(): Promise<CheckoutFake> {
  const sim = new CheckoutSimulation();
  const server = await startFakeServer((req) => sim.handle(req));
  sim.url = server.url;
  return Object.assign(server, {
    baseUrl: server.url,
    payments: sim.payments,
    get slowMs() {
      return sim.slowMs;
    },
    set slowMs(value: number) {
      sim.slowMs = value;
    },
    failNext(status: 401 | 429 | 500) {
      sim.fault = status;
    },
    bodies(pathSuffix: string) {
      return server.requests
        .filter((r) => r.method === 'POST' && new URL(r.path, 'http://fake').pathname.endsWith(pathSuffix))
        .map((r) => JSON.parse(r.body || '{}') as Record<string, any>);
    },
    completeThreeDs(paymentId: string, ok: boolean) {
      const p = sim.payments.get(paymentId);
      if (p?.status !== 'Pending') throw new Error(`no payment waiting for 3DS: ${paymentId}`);
      if (ok) {
        p.status = 'Authorized';
        p.approved = true;
        p.actions.push({
          id: id('act'),
          type: 'Authorization',
          processed_on: now(),
          amount: p.amount,
          approved: true,
          response_code: '10000',
          response_summary: 'Approved',
        });
        if (p.capture) {
          p.status = 'Captured';
          p.captured = p.amount;
        }
      } else {
        p.status = 'Declined';
        p.approved = false;
        p.responseCode = '20151';
        p.actions.push({
          id: id('act'),
          type: 'Authorization',
          processed_on: now(),
          amount: p.amount,
          approved: false,
          response_code: '20151',
          response_summary: 'Cardholder failed 3DS authentication',
        });
      }
      const back = new URL(p.successUrl ?? 'http://merchant.invalid/');
      back.searchParams.set('cko-session-id', `sid_${p.id.slice(4)}`);
      return back.toString();
    },
    madeFor(idempotencyKey: string) {
      return sim.byKey.get(idempotencyKey) ?? null;
    },
    webhook(
      type: string,
      data: Record<string, unknown>,
      signatureKey: string,
      options: { id?: string; createdOn?: string } = {},
    ) {
      const event = {
        id: options.id ?? id('evt'),
        type,
        version: '1.0.33',
        created_on: options.createdOn ?? now(),
        data,
      };
      const rawBody = Buffer.from(JSON.stringify(event));
      const signature = createHmac('sha256', signatureKey).update(rawBody).digest('hex');
      return { headers: { 'content-type': 'application/json', 'cko-signature': signature }, rawBody };
    },
  });
}
