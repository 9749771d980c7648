import { randomBytes } from 'node:crypto';
import type { InboundWebhookRequest } from '../../src/connectors/connector-webhooks.ts';
import { PAYPAL_FAKE_WEBHOOK_ID, signedEvent, verifyWebhook } from './paypal-fake-webhooks.ts';
import { ITEM_EVENTS, PaypalPayouts, type PayoutBatch } from './paypal-fake-payouts.ts';
import { startFakeServer, type FakeAnswer, type FakeRequest, type FakeServer } from './fake-server.ts';
import {
  voidAuthorization,
  minorOf,
  moneyOf,
  notFound,
  orderView,
  paypalError,
  unprocessable,
  type Order,
  type Resource,
} from './paypal-fake-state.ts';

/**
 * A local PayPal REST API, from PayPal's documented requests and answers: OAuth 2.0 client
 * credentials (`POST /v1/oauth2/token`), Orders v2 (create, get, authorize, capture), Payments v2
 * (authorizations: get, capture, void; captures: get, refund; refunds: get), webhook signature
 * verification and webhook lookup, Payouts v1 (paypal-fake-payouts.ts), and the buyer's approval page (`GET /checkoutnow?token=`, which
 * approves the order and redirects to its return_url with `token` and `PayerID`, or to its
 * cancel_url with `decision=cancel`). Errors are PayPal's bodies (name, message, debug_id,
 * details[].issue).
 *
 * Idempotency: a repeated PayPal-Request-Id on the same path gets the first answer whatever the
 * body, as PayPal documents. The fake is stricter than PayPal in one place: a POST that can move
 * money without a PayPal-Request-Id is refused (400), since the connector must send one on each.
 *
 * Webhooks: `event()` makes a delivery signed with the fake's own key over PayPal's signed string
 * (`<transmission id>|<time>|<webhook id>|<CRC32 of the body>`); verify-webhook-signature checks it
 * over the event bytes exactly as received, so a re-serialized event fails as at PayPal.
 *
 * Outcomes by the order's amount (minor units):
 *
 * | amount | answer |
 * |---|---|
 * | 2005 | authorize/capture of the order: 422 INSTRUMENT_DECLINED |
 * | 2051 | the authorization is DENIED |
 * | 2077 | the authorization is PENDING (review) |
 * | 2409 | the order is created, then the connection is dropped before the answer |
 * | other | authorized (CREATED) or captured (COMPLETED) |
 */

export const PAYPAL_FAKE_CLIENT_ID = 'AfakeClientId-svc-test';
export const PAYPAL_FAKE_SECRET = 'EfakeClientSecret-0123456789abcdefghij';
export { PAYPAL_FAKE_WEBHOOK_ID } from './paypal-fake-webhooks.ts';

export interface PaypalFake extends FakeServer {
  orders: Map<string, Order>;
  /** The next call (other than the token) answers this status, once. */
  failNext(status: 401 | 429 | 500): void;
  /** The JSON bodies of the POSTs on a path suffix. */
  bodies(pathSuffix: string): Array<Record<string, any>>;
  /** The buyer approves the order (as on PayPal's page); the query PayPal appends to the return_url. */
  approve(orderId: string): Record<string, string>;
  /** Captures what is left of the order's authorization (as a merchant would); the capture id. */
  settle(orderId: string): string;
  /** The order made for a PayPal-Request-Id, if any. */
  orderOfRequestId(requestId: string): Order | null;
  /** A signed webhook delivery of `eventType` about `resource`; `tamper` alters the body after signing. */
  event(eventType: string, resource: Record<string, unknown>, tamper?: boolean): InboundWebhookRequest;
  /** The payout batches (Payouts API; paypal-fake-payouts.ts). */
  payoutBatches: Map<string, PayoutBatch>;
  /**
   * PayPal pays the batch's item (its final status by amount and receiver) and sends its webhook:
   * the signed PAYMENT.PAYOUTS-ITEM.* delivery, `tamper` altering it after signing.
   */
  completePayout(batchId: string, tamper?: boolean): InboundWebhookRequest;
}

const MONEY_MOVING =
  /^\/v2\/(checkout\/orders(\/[^/]+\/(authorize|capture))?|payments\/(authorizations\/[^/]+\/(capture|void)|captures\/[^/]+\/refund))$/;
const now = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');

class PaypalSimulation {
  readonly orders = new Map<string, Order>();
  private readonly replies = new Map<string, FakeAnswer>();
  private readonly tokens = new Set<string>();
  private sequence = 0;
  fault: 429 | 500 | null = null;

  revoke(): void {
    this.tokens.clear();
    this.refuseToken = true;
  }
  url = '';

  private id(prefix: string): string {
    this.sequence += 1;
    return `${prefix}${String(this.sequence).padStart(14, '0')}`.slice(0, 17).toUpperCase();
  }

  private links(kind: 'authorizations' | 'captures' | 'refunds', id: string, up: string | null) {
    const self = { href: `${this.url}/v2/payments/${kind}/${id}`, rel: 'self', method: 'GET' };
    return up ? [self, { href: up, rel: 'up', method: 'GET' }] : [self];
  }

  /** Set by a 401 fault: the credentials are refused (every token issued, and the next token request). */
  refuseToken = false;

  token(req: FakeRequest): FakeAnswer {
    const refused = this.refuseToken;
    this.refuseToken = false;
    const basic = Buffer.from(`${PAYPAL_FAKE_CLIENT_ID}:${PAYPAL_FAKE_SECRET}`).toString('base64');
    if (refused || req.headers.authorization !== `Basic ${basic}` || req.body !== 'grant_type=client_credentials')
      return { status: 401, json: { error: 'invalid_client', error_description: 'Client Authentication failed' } };
    const token = `A21AA${randomBytes(24).toString('hex')}`;
    this.tokens.add(token);
    return {
      status: 200,
      json: {
        scope: 'https://uri.paypal.com/services/payments/payment https://uri.paypal.com/payments/payouts',
        access_token: token,
        token_type: 'Bearer',
        app_id: 'APP-80W284485P519543T',
        expires_in: 32400,
        nonce: 'fake',
      },
    };
  }

  handle(req: FakeRequest): FakeAnswer | null {
    const url = new URL(req.path, 'http://fake');
    if (req.method === 'POST' && url.pathname === '/v1/oauth2/token') return this.token(req);
    if (req.method === 'GET' && url.pathname === '/checkoutnow') return this.buyerPage(url);
    const bearer = req.headers.authorization?.replace(/^Bearer /, '') ?? '';
    if (!this.tokens.has(bearer))
      return paypalError(
        401,
        'AUTHENTICATION_FAILURE',
        null,
        'Authentication failed due to invalid authentication credentials or a missing Authorization header.',
      );
    if (this.fault) {
      const status = this.fault;
      this.fault = null;
      return status === 429
        ? paypalError(429, 'RATE_LIMIT_REACHED', null)
        : paypalError(500, 'INTERNAL_SERVER_ERROR', null);
    }
    const requestId = req.headers['paypal-request-id'];
    if (req.method === 'POST' && MONEY_MOVING.test(url.pathname)) {
      if (typeof requestId !== 'string' || !requestId)
        return paypalError(400, 'FAKE_MISSING_REQUEST_ID', 'MISSING_REQUIRED_HEADER');
      const key = `${url.pathname}|${requestId}`;
      const replay = this.replies.get(key);
      if (replay) return replay;
      const answer = this.route(req, url, requestId);
      const kept = 'drop' in answer ? this.dropped : answer;
      if (kept && 'status' in kept && kept.status < 500) this.replies.set(key, kept);
      return answer;
    }
    if (url.pathname.startsWith('/v1/payments/payouts')) return this.payouts.handle(req, url);
    return this.route(req, url, null);
  }

  readonly payouts = new PaypalPayouts(
    () => this.url,
    () => new Set([...this.orders.values()].map((o) => o.payerId).filter((p): p is string => p !== null)),
  );

  /** The answer kept for a dropped create (its replay gives the order). */
  private dropped: FakeAnswer | null = null;

  private route(req: FakeRequest, url: URL, requestId: string | null): FakeAnswer {
    const body = (req.body ? JSON.parse(req.body) : {}) as Record<string, any>;
    const parts = url.pathname.split('/').filter(Boolean);
    const [v, group, kind, id, action] = parts;
    if (req.method === 'POST' && url.pathname === '/v2/checkout/orders') return this.createOrder(body, requestId!);
    if (v === 'v2' && group === 'checkout' && kind === 'orders' && id) {
      const order = this.orders.get(id);
      if (!order) return notFound();
      if (req.method === 'GET' && !action) return { status: 200, json: orderView(order, this.url) };
      if (req.method === 'POST' && (action === 'authorize' || action === 'capture'))
        return this.complete(order, action);
    }
    if (v === 'v2' && group === 'payments' && id) {
      const found = this.find(kind!, id);
      if (!found) return notFound();
      if (req.method === 'GET' && !action) return { status: 200, json: found.resource };
      if (req.method === 'POST' && kind === 'authorizations' && action === 'capture')
        return this.capture(found.order, found.resource, body);
      if (req.method === 'POST' && kind === 'authorizations' && action === 'void')
        return voidAuthorization(found.resource);
      if (req.method === 'POST' && kind === 'captures' && action === 'refund')
        return this.refund(found.order, found.resource, body);
    }
    if (req.method === 'POST' && url.pathname === '/v1/notifications/verify-webhook-signature')
      return verifyWebhook(req.body);
    if (req.method === 'GET' && url.pathname.startsWith('/v1/notifications/webhooks/'))
      return parts[3] === PAYPAL_FAKE_WEBHOOK_ID
        ? { status: 200, json: { id: PAYPAL_FAKE_WEBHOOK_ID, url: 'https://svc.example/webhooks', event_types: [] } }
        : notFound();
    return notFound();
  }

  private find(kind: string, id: string): { order: Order; resource: Resource } | null {
    for (const order of this.orders.values()) {
      const list =
        kind === 'authorizations'
          ? order.authorizations
          : kind === 'captures'
            ? order.captures
            : kind === 'refunds'
              ? order.refunds
              : [];
      const resource = list.find((r) => r.id === id);
      if (resource) return { order, resource };
    }
    return null;
  }

  private createOrder(body: Record<string, any>, requestId: string): FakeAnswer {
    const unit = body.purchase_units?.[0];
    if (!['AUTHORIZE', 'CAPTURE'].includes(body.intent) || !unit || body.purchase_units.length !== 1)
      return paypalError(400, 'INVALID_REQUEST', 'MISSING_REQUIRED_PARAMETER');
    const minor = minorOf(unit.amount);
    if (minor === null)
      return unprocessable('DECIMAL_PRECISION', 'The amount has more or fewer decimals than the currency takes');
    const breakdown = unit.amount.breakdown;
    if (breakdown && (minorOf(breakdown.item_total) ?? 0) + (minorOf(breakdown.shipping) ?? 0) !== minor)
      return unprocessable('AMOUNT_MISMATCH');
    const options = unit.shipping?.options as Array<Record<string, any>> | undefined;
    if (options) {
      const selected = options.filter((o) => o.selected === true);
      if (selected.length !== 1)
        return unprocessable(selected.length ? 'MULTIPLE_SHIPPING_OPTION_SELECTED' : 'SHIPPING_OPTION_NOT_SELECTED');
      if (selected[0]!.amount && minorOf(selected[0]!.amount) !== (minorOf(breakdown?.shipping) ?? -1))
        return unprocessable(
          'SHIPPING_OPTIONS_NOT_SUPPORTED',
          'The selected option amount must be the breakdown shipping',
        );
    }
    const context = body.payment_source?.paypal?.experience_context ?? {};
    const order: Order = {
      id: this.id('5O'),
      intent: body.intent,
      status: 'PAYER_ACTION_REQUIRED',
      requestId,
      amount: { currency_code: unit.amount.currency_code, value: unit.amount.value },
      minor,
      customId: unit.custom_id ?? null,
      shipping: unit.shipping ?? null,
      returnUrl: context.return_url ?? null,
      cancelUrl: context.cancel_url ?? null,
      payerId: null,
      authorizations: [],
      captures: [],
      refunds: [],
    };
    this.orders.set(order.id, order);
    const answer: FakeAnswer = { status: 200, json: orderView(order, this.url) };
    if (minor === 2409) {
      this.dropped = answer;
      return { drop: true };
    }
    return answer;
  }

  private buyerPage(url: URL): FakeAnswer {
    const order = this.orders.get(url.searchParams.get('token') ?? '');
    if (!order) return notFound();
    if (url.searchParams.get('decision') === 'cancel') {
      const back = order.cancelUrl ?? '';
      return {
        status: 302,
        json: null,
        headers: { location: `${back}${back.includes('?') ? '&' : '?'}token=${order.id}` },
      };
    }
    const query = this.approve(order.id);
    const back = new URL(order.returnUrl ?? 'http://missing.invalid/');
    for (const [k, value] of Object.entries(query)) back.searchParams.set(k, value);
    return { status: 302, json: null, headers: { location: back.toString() } };
  }

  approve(orderId: string): Record<string, string> {
    const order = this.orders.get(orderId);
    if (!order) throw new Error(`no order ${orderId}`);
    if (order.status === 'PAYER_ACTION_REQUIRED' || order.status === 'CREATED') {
      order.status = 'APPROVED';
      order.payerId = 'FAKEPAYER7Q3W';
    }
    return { token: order.id, PayerID: order.payerId ?? '' };
  }

  settle(orderId: string): string {
    const order = this.orders.get(orderId);
    const authorization = order?.authorizations[0];
    if (!order || !authorization) throw new Error(`no authorized order ${orderId}`);
    const answer = this.capture(order, authorization, { final_capture: true });
    return (answer as { json: { id: string } }).json.id;
  }

  private complete(order: Order, action: 'authorize' | 'capture'): FakeAnswer {
    if (order.status === 'COMPLETED')
      return unprocessable(action === 'authorize' ? 'ORDER_ALREADY_AUTHORIZED' : 'ORDER_ALREADY_CAPTURED');
    if (order.status !== 'APPROVED') return unprocessable('ORDER_NOT_APPROVED');
    if ((order.intent === 'AUTHORIZE') !== (action === 'authorize'))
      return unprocessable('ACTION_DOES_NOT_MATCH_INTENT');
    if (order.minor === 2005)
      return unprocessable(
        'INSTRUMENT_DECLINED',
        'The instrument presented was either declined by the processor or bank, or it cannot be used for this payment.',
      );
    const related = { supplementary_data: { related_ids: { order_id: order.id } }, create_time: now() };
    if (action === 'authorize') {
      const id = this.id('0AW');
      const status = order.minor === 2051 ? 'DENIED' : order.minor === 2077 ? 'PENDING' : 'CREATED';
      order.authorizations.push({
        id,
        status,
        amount: order.amount,
        ...(status === 'PENDING' ? { status_details: { reason: 'PENDING_REVIEW' } } : {}),
        ...related,
        links: this.links('authorizations', id, `${this.url}/v2/checkout/orders/${order.id}`),
      });
    } else {
      const id = this.id('3C6');
      order.captures.push({
        id,
        status: 'COMPLETED',
        amount: order.amount,
        final_capture: true,
        ...related,
        links: this.links('captures', id, null),
      });
    }
    order.status = 'COMPLETED';
    return { status: 201, json: orderView(order, this.url) };
  }

  private captured(order: Order, authorizationId: string): number {
    return order.captures
      .filter((c) => c.supplementary_data?.related_ids.authorization_id === authorizationId && c.status !== 'DECLINED')
      .reduce((sum, c) => sum + (minorOf(c.amount) ?? 0), 0);
  }

  private capture(order: Order, authorization: Resource, body: Record<string, any>): FakeAnswer {
    if (authorization.status === 'VOIDED') return unprocessable('AUTHORIZATION_VOIDED');
    if (authorization.status === 'CAPTURED') return unprocessable('AUTHORIZATION_ALREADY_CAPTURED');
    if (authorization.status === 'DENIED') return unprocessable('AUTHORIZATION_DENIED');
    const left = order.minor - this.captured(order, authorization.id);
    const amount = body.amount === undefined ? left : minorOf(body.amount);
    if (amount === null) return unprocessable('DECIMAL_PRECISION');
    if (body.amount && body.amount.currency_code !== order.amount.currency_code)
      return unprocessable('CURRENCY_MISMATCH');
    if (amount > left) return unprocessable('MAX_CAPTURE_AMOUNT_EXCEEDED');
    const id = this.id('3C6');
    const capture: Resource = {
      id,
      status: 'COMPLETED',
      amount: moneyOf(amount, order.amount.currency_code),
      ...(body.invoice_id ? { invoice_id: body.invoice_id } : {}),
      final_capture: body.final_capture === true,
      supplementary_data: { related_ids: { order_id: order.id, authorization_id: authorization.id } },
      links: this.links('captures', id, `${this.url}/v2/payments/authorizations/${authorization.id}`),
      create_time: now(),
    };
    order.captures.push(capture);
    authorization.status = body.final_capture === true || amount === left ? 'CAPTURED' : 'PARTIALLY_CAPTURED';
    return { status: 201, json: capture };
  }

  private refund(order: Order, capture: Resource, body: Record<string, any>): FakeAnswer {
    if (capture.status === 'REFUNDED') return unprocessable('CAPTURE_FULLY_REFUNDED');
    const refunded = order.refunds
      .filter((r) => r.links.some((l) => l.rel === 'up' && l.href.endsWith(`/${capture.id}`)))
      .reduce((sum, r) => sum + (minorOf(r.amount) ?? 0), 0);
    const left = (minorOf(capture.amount) ?? 0) - refunded;
    const amount = body.amount === undefined ? left : minorOf(body.amount);
    if (amount === null) return unprocessable('DECIMAL_PRECISION');
    if (amount > left) return unprocessable('REFUND_AMOUNT_EXCEEDED');
    const id = this.id('1JU');
    const refund: Resource = {
      id,
      status: 'COMPLETED',
      amount: moneyOf(amount, order.amount.currency_code),
      ...(body.custom_id ? { custom_id: body.custom_id } : {}),
      links: this.links('refunds', id, `${this.url}/v2/payments/captures/${capture.id}`),
      create_time: now(),
    };
    order.refunds.push(refund);
    capture.status = amount === left ? 'REFUNDED' : 'PARTIALLY_REFUNDED';
    return { status: 201, json: refund };
  }
}

export async function startPaypalFake(): Promise<PaypalFake> {
  const sim = new PaypalSimulation();
  const server = await startFakeServer((req) => sim.handle(req) ?? notFound());
  sim.url = server.url;
  return Object.assign(server, {
    orders: sim.orders,
    failNext: (status: 401 | 429 | 500) => {
      // 401: the app's credentials were revoked: its tokens and the next token request are refused.
      if (status === 401) sim.revoke();
      else sim.fault = status;
    },
    bodies: (suffix: string) =>
      server.requests
        .filter((r) => r.method === 'POST' && new URL(r.path, 'http://f').pathname.endsWith(suffix))
        .map((r) => JSON.parse(r.body || '{}')),
    approve: (orderId: string) => sim.approve(orderId),
    settle: (orderId: string) => sim.settle(orderId),
    orderOfRequestId: (requestId: string) => [...sim.orders.values()].find((o) => o.requestId === requestId) ?? null,
    event: (eventType: string, resource: Record<string, unknown>, tamper = false) =>
      signedEvent(eventType, resource, tamper),
    payoutBatches: sim.payouts.batches,
    completePayout: (batchId: string, tamper = false) => {
      const item = sim.payouts.complete(batchId)[0]!;
      return signedEvent(ITEM_EVENTS[item.transaction_status]!, sim.payouts.itemView(item), tamper);
    },
  });
}
