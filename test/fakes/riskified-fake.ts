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
 */

export const RISKIFIED_FAKE_SHOP = 'shop.svc-test.example';
export const RISKIFIED_FAKE_TOKEN = 'fakeRiskifiedAuthToken-0123456789abcdef';

export interface RiskifiedFake extends FakeServer {
  /** The base URL a connector is pointed at (`CONNECTOR_BASE_URLS`). */
  apiUrl: string;
  /** The next call answers this status, once (401: as if the token were wrong). */
  failNext(status: 401 | 429 | 500): void;
  /** The orders of the accepted Decide calls, in order. */
  orders: Array<Record<string, any>>;
}

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
  if (typeof order.total_price !== 'string' || !/^\d+(\.\d+)?$/.test(order.total_price))
    return 'order.total_price must be a decimal';
  if (!Array.isArray(order.line_items) || order.line_items.length === 0) return 'order.line_items is required';
  for (const details of order.payment_details ?? [])
    if (typeof details.credit_card_number === 'string' && /\d{5,}/.test(details.credit_card_number.replace(/\D/g, '')))
      return 'credit_card_number must be masked';
  return null;
}

export async function startRiskifiedFake(): Promise<RiskifiedFake> {
  let failing: number | null = null;
  const orders: Array<Record<string, any>> = [];
  const server = await startFakeServer((req) => {
    if (failing !== null) {
      const status = failing;
      failing = null;
      return error(status, 'failure injected by the test');
    }
    const refused = refusal(req);
    if (refused) return refused;
    if (req.method !== 'POST' || req.path !== '/api/decide') return error(404, 'Not found');
    const order = (JSON.parse(req.body) as { order?: Record<string, any> }).order;
    const invalid = invalidOrder(order);
    if (invalid) return error(400, invalid);
    orders.push(order!);
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
    failNext(status) {
      failing = status;
    },
  };
}
