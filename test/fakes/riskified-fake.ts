import { riskifiedSignatureValid } from '../../src/connectors/riskified/riskified.signature.ts';
import { startFakeServer, type FakeAnswer, type FakeRequest, type FakeServer } from './fake-server.ts';

/**
 * A local Riskified API, from Riskified's API reference (apiref.riskified.com, "Authentication",
 * "Decide", "Models: Order"): `POST /api/decide` with `{ order }`, answered
 * `{ order: { id, status, description } }`. Every request must carry
 * `Accept: application/vnd.riskified.com; version=2`, `X-RISKIFIED-SHOP-DOMAIN` (the registered
 * shop) and `X-RISKIFIED-HMAC-SHA256` (hex HMAC-SHA256 of the exact body under the auth token):
 * else 401 with `{ error: { message } }`. An order without id, created_at, currency, total_price
 * or line_items is 400, and so is a `credit_card_number` that is more than its last four digits
 * (Riskified never needs the card number; the fake makes sure it never gets it).
 *
 * Decisions by the order's `total_price` (its minor units in the tables of the other fakes):
 *
 * | total | answer |
 * |---|---|
 * | 20.05 | declined |
 * | 23.00 | submitted (Riskified reviews it: held for review) |
 * | 24.09 | approved, after 3 s (past a short client timeout) |
 * | 50.00 | 500 |
 * | 50.01 | 200 with a status Riskified does not document (`captured`) |
 * | other | approved |
 *
 * The calls after a Decide (decision 0143; apiref.riskified.com "Decision", "Checkout Denied",
 * "Cancel/Full-Refund", "Partial-Refund", "Chargeback" and their models, as Riskified's SDKs build
 * them), each about an order this fake decided (else 404 `Order not found`), checked for the
 * fields Riskified requires (else 400), recorded in `updates` and answered `{ order: { id } }`:
 * `POST /api/decision` `{ order: { id, decision: { external_status, decided_at, amount, currency } } }`,
 * `POST /api/checkout_denied` `{ checkout: { id, payment_details: [{ authorization_error: { created_at, error_code } }] } }`,
 * `POST /api/cancel` `{ order: { id, cancelled_at, cancel_reason } }`,
 * `POST /api/refund` `{ order: { id, refunds: [{ refund_id, amount, currency }] } }`,
 * `POST /api/chargeback` `{ order: { id, chargeback_details: { id, chargeback_at, chargeback_amount, chargeback_currency } } }`.
 */

export const RISKIFIED_FAKE_SHOP = 'shop.svc-test.example';
export const RISKIFIED_FAKE_TOKEN = 'fakeRiskifiedAuthToken-0123456789abcdef';

export interface RiskifiedFake extends FakeServer {
  /** The base URL a connector is pointed at (`CONNECTOR_BASE_URLS`). */
  apiUrl: string;
  /** The next `times` calls answer this status (401: as if the token were wrong). */
  failNext(status: 400 | 401 | 429 | 500 | 503, times?: number): void;
  /** The next call is answered after `ms` (past a client's timeout: no answer). */
  stallNext(ms: number): void;
  /** The orders of the accepted Decide calls, in order. */
  orders: Array<Record<string, any>>;
  /** The accepted calls after a Decide, in order: the endpoint (`/api/decision`, …) and its body. */
  updates: Array<{ path: string; body: Record<string, any> }>;
}

const DECIMAL = /^\d+(\.\d+)?$/;
const CURRENCY = /^[A-Z]{3}$/;
const isTime = (value: unknown) => typeof value === 'string' && !Number.isNaN(Date.parse(value));
const isAmount = (value: unknown) => typeof value === 'number' && Number.isFinite(value) && value >= 0;
/** Decision Details `external_status` (Riskified's SDKs: ExternalStatusType). */
const EXTERNAL_STATUSES = [
  'approved',
  'checkout',
  'cancelled',
  'declined',
  'declined_fraud',
  'declined_business',
  'chargeback_fraud',
  'chargeback_not_fraud',
];

/** What each endpoint after a Decide requires: the problem, or null. `id` is the order's. */
const UPDATE_CHECKS: Record<string, (body: Record<string, any>) => { id: unknown; problem: string | null }> = {
  '/api/decision': ({ order }) => {
    const d = order?.decision;
    if (!d) return { id: order?.id, problem: 'order.decision is required' };
    if (!EXTERNAL_STATUSES.includes(d.external_status)) return { id: order.id, problem: 'unknown external_status' };
    const ok = isTime(d.decided_at) && isAmount(d.amount) && CURRENCY.test(d.currency ?? '');
    return { id: order.id, problem: ok ? null : 'decision needs decided_at, amount and currency' };
  },
  '/api/checkout_denied': ({ checkout }) => {
    const error = checkout?.payment_details?.[0]?.authorization_error;
    const ok = error && isTime(error.created_at) && typeof error.error_code === 'string' && error.error_code !== '';
    return {
      id: checkout?.id,
      problem: ok ? null : 'payment_details[0].authorization_error needs created_at and error_code',
    };
  },
  '/api/cancel': ({ order }) => {
    const ok = isTime(order?.cancelled_at) && typeof order?.cancel_reason === 'string';
    return { id: order?.id, problem: ok ? null : 'cancel needs cancelled_at and cancel_reason' };
  },
  '/api/refund': ({ order }) => {
    const refunds = order?.refunds;
    const ok =
      Array.isArray(refunds) &&
      refunds.length > 0 &&
      refunds.every(
        (r: any) => typeof r.refund_id === 'string' && isAmount(r.amount) && CURRENCY.test(r.currency ?? ''),
      );
    return { id: order?.id, problem: ok ? null : 'refunds need refund_id, amount and currency' };
  },
  '/api/chargeback': ({ order }) => {
    const c = order?.chargeback_details;
    const ok =
      c &&
      typeof c.id === 'string' &&
      isTime(c.chargeback_at) &&
      isAmount(c.chargeback_amount) &&
      CURRENCY.test(c.chargeback_currency ?? '');
    return { id: order?.id, problem: ok ? null : 'chargeback_details needs id, chargeback_at, amount and currency' };
  },
};

const error = (status: number, message: string): FakeAnswer => ({ status, json: { error: { message } } });

function refusal(req: FakeRequest): FakeAnswer | null {
  if (req.headers.accept !== 'application/vnd.riskified.com; version=2') return error(400, 'Unsupported API version');
  if (req.headers['x-riskified-shop-domain'] !== RISKIFIED_FAKE_SHOP) return error(401, 'Unknown shop domain');
  const signature = req.headers['x-riskified-hmac-sha256'];
  if (typeof signature !== 'string' || !riskifiedSignatureValid(RISKIFIED_FAKE_TOKEN, req.body, signature))
    return error(401, 'HMAC signature mismatch');
  return null;
}

function invalidOrder(order: Record<string, any> | undefined): string | null {
  if (!order) return 'order is required';
  for (const key of ['id', 'created_at', 'currency', 'total_price'])
    if (order[key] === undefined || order[key] === null || order[key] === '') return `order.${key} is required`;
  if (typeof order.total_price !== 'string' || !DECIMAL.test(order.total_price))
    return 'order.total_price must be a decimal';
  if (!Array.isArray(order.line_items) || order.line_items.length === 0) return 'order.line_items is required';
  for (const details of order.payment_details ?? [])
    if (typeof details.credit_card_number === 'string' && /\d{5,}/.test(details.credit_card_number.replace(/\D/g, '')))
      return 'credit_card_number must be masked';
  return null;
}

function update(req: FakeRequest, decided: ReadonlySet<string>, updates: RiskifiedFake['updates']): FakeAnswer {
  const body = JSON.parse(req.body) as Record<string, any>;
  const { id, problem } = UPDATE_CHECKS[req.path]!(body);
  if (typeof id !== 'string' || id === '') return error(400, 'order id is required');
  if (problem) return error(400, problem);
  if (!decided.has(id)) return error(404, 'Order not found');
  updates.push({ path: req.path, body });
  return { status: 200, json: { order: { id, status: 'received', description: 'Received' } } };
}

export async function startRiskifiedFake(): Promise<RiskifiedFake> {
  let failing: { status: number; times: number } | null = null;
  let stall = 0;
  const orders: Array<Record<string, any>> = [];
  const updates: RiskifiedFake['updates'] = [];
  const decided = new Set<string>();
  const server = await startFakeServer((req) => {
    if (failing !== null) {
      const status = failing.status;
      failing = failing.times > 1 ? { status, times: failing.times - 1 } : null;
      return error(status, 'failure injected by the test');
    }
    if (stall > 0) {
      const delayMs = stall;
      stall = 0;
      return { status: 200, json: { order: { status: 'received' } }, delayMs };
    }
    const refused = refusal(req);
    if (refused) return refused;
    if (req.method === 'POST' && Object.hasOwn(UPDATE_CHECKS, req.path)) return update(req, decided, updates);
    if (req.method !== 'POST' || req.path !== '/api/decide') return error(404, 'Not found');
    const order = (JSON.parse(req.body) as { order?: Record<string, any> }).order;
    const invalid = invalidOrder(order);
    if (invalid) return error(400, invalid);
    orders.push(order!);
    decided.add(order!.id);
    const answer = (status: string, description: string, delayMs = 0): FakeAnswer => ({
      status: 200,
      json: { order: { id: order!.id, status, description } },
      delayMs,
    });
    switch (order!.total_price) {
      case '20.05':
        return answer('declined', 'Under review by Riskified: high risk');
      case '23.00':
        return answer('submitted', 'Submitted for manual review');
      case '24.09':
        return answer('approved', 'Reviewed and approved by Riskified', 3_000);
      case '50.00':
        return error(500, 'Internal error');
      case '50.01':
        return answer('captured', 'Not a Decide status');
      default:
        return answer('approved', 'Reviewed and approved by Riskified');
    }
  });
  return {
    ...server,
    apiUrl: `${server.url}/api`,
    orders,
    updates,
    failNext(status, times = 1) {
      failing = { status, times };
    },
    stallNext(ms) {
      stall = ms;
    },
  };
}
