import { createHmac } from 'node:crypto';
import type { InboundWebhookRequest } from '../../src/connectors/connector-webhooks.ts';
import { startFakeServer, type FakeAnswer, type FakeRequest, type FakeServer } from './fake-server.ts';

/**
 * A local GoCardless API, from GoCardless's documented requests and answers
 * (developer.gocardless.com/api-reference): billing requests (create, get, cancel), billing
 * request flows (create: the payer's `authorisation_url`), mandates (get, cancel), payments
 * (create, get, list by mandate), refunds (create, get, list by payment or mandate), creditors
 * (list: credential checks). Every call needs `Authorization: Bearer <token>` and
 * `GoCardless-Version: 2015-07-06`; bodies are wrapped in the resource's plural name; errors are
 * GoCardless's `{error: {type, code, message, errors: [{reason, message}]}}`.
 *
 * Idempotency: a create repeating an Idempotency-Key answers 409 `idempotent_creation_conflict`
 * with `links.conflicting_resource_id`, as GoCardless does. The fake is stricter in one place: a
 * create without an Idempotency-Key is refused (400), since the connector must send one.
 *
 * The test moves time forward: `approve` (the payer completes GoCardless's page: the billing
 * request is fulfilled with a new mandate), `advance` (a payment or refund reaches a status; the
 * signed webhook GoCardless would send is returned), `event` (any signed delivery).
 *
 * Outcomes by the amount our billing request metadata names (`svc_amount`, minor units):
 *
 * | amount | answer |
 * |---|---|
 * | 2005 | the mandate fails once the payer approves (their bank refuses it) |
 * | 2409 | the billing request is created, then its answer is held for 3 s (longer than the test's bound) |
 * | other | the mandate is created (pending_submission); payments start pending_submission |
 */

export const GOCARDLESS_FAKE_TOKEN = 'sandbox_fakeAccessToken-svc-0123456789abcdef';
export const GOCARDLESS_FAKE_WEBHOOK_SECRET = 'fake-webhook-endpoint-secret-svc';

interface Resource {
  id: string;
  status: string;
  created_at: string;
  [key: string]: unknown;
}

export interface GoCardlessFake extends FakeServer {
  resources: Map<string, Resource>;
  /** The next call answers this status, once. */
  failNext(status: 401 | 429 | 500): void;
  /** The payer completes GoCardless's page: the billing request is fulfilled with a new mandate; what GoCardless appends to redirect_uri (nothing). */
  approve(billingRequestId: string): Record<string, string>;
  /** The billing request made for an Idempotency-Key, if any. */
  billingRequestOfKey(key: string): Resource | null;
  /** The payments made against the billing request's mandate. */
  paymentsOf(billingRequestId: string): Resource[];
  /** A payment made directly at the fake (as a merchant's dashboard would), marked for the billing request. */
  collect(billingRequestId: string, amount: number, status?: string): Resource;
  /** A refund made directly at the fake. */
  refundOf(paymentId: string, amount: number, status?: string): Resource;
  /** A payment or refund reaches `action` (a status, or `charged_back`...); the signed webhook delivery of its event. */
  advance(id: string, action: string, tamper?: boolean): InboundWebhookRequest;
  /** A signed delivery of these events (`tamper` alters the body after signing). */
  event(events: Array<Record<string, unknown>>, tamper?: boolean): InboundWebhookRequest;
}

const now = () => new Date().toISOString();
const error = (code: number, type: string, reason: string, message: string, links?: Record<string, string>) => ({
  status: code,
  json: {
    error: {
      type,
      code,
      message,
      request_id: `RQ${Date.now()}`,
      documentation_url: `https://developer.gocardless.com/api-reference#${reason}`,
      errors: [{ reason, message, ...(links ? { links } : {}) }],
    },
  },
});
const notFound = () => error(404, 'invalid_api_usage', 'resource_not_found', 'Resource not found');

/** Payment statuses from which each later status can be reached (the scheme's order). */
const PAYMENT_NEXT: Record<string, string[]> = {
  pending_submission: ['submitted', 'cancelled', 'failed', 'confirmed'],
  submitted: ['confirmed', 'failed'],
  confirmed: ['paid_out', 'charged_back'],
  paid_out: ['charged_back'],
  charged_back: ['chargeback_cancelled'],
};

class GoCardlessSimulation {
  readonly resources = new Map<string, Resource>();
  private readonly keys = new Map<string, string>();
  private sequence = 0;
  fault: 401 | 429 | 500 | null = null;
  url = '';

  private id(prefix: string): string {
    this.sequence += 1;
    return `${prefix}${String(this.sequence).padStart(6, '0')}${Math.random().toString(36).slice(2, 6).toUpperCase()}`;
  }

  private put(prefix: string, fields: Record<string, unknown>): Resource {
    const resource = { id: this.id(prefix), created_at: now(), status: 'pending', ...fields } as Resource;
    this.resources.set(resource.id, resource);
    return resource;
  }

  handle(req: FakeRequest): FakeAnswer {
    if (req.method === 'GET' && req.path.startsWith('/pay/')) return this.page(req.path);
    if (req.headers.authorization !== `Bearer ${GOCARDLESS_FAKE_TOKEN}`)
      return error(401, 'invalid_api_usage', 'unauthorized', 'Authentication failed');
    if (req.headers['gocardless-version'] !== '2015-07-06')
      return error(400, 'invalid_api_usage', 'missing_version_header', 'GoCardless-Version header is required');
    if (this.fault) {
      const status = this.fault;
      this.fault = null;
      return error(status, status === 429 ? 'invalid_api_usage' : 'gocardless', `fault_${status}`, 'Injected fault');
    }
    const url = new URL(req.path, 'http://fake');
    const parts = url.pathname.split('/').filter(Boolean);
    if (req.method === 'GET') return this.get(parts, url.searchParams);
    const body = req.body ? (JSON.parse(req.body) as Record<string, any>) : {};
    if (parts.length === 1) {
      const key = req.headers['idempotency-key'];
      if (typeof key !== 'string' || !key)
        return error(
          400,
          'invalid_api_usage',
          'idempotency_key_required',
          'The fake requires an Idempotency-Key on creates',
        );
      const seen = this.keys.get(`${parts[0]}|${key}`);
      if (seen)
        return error(
          409,
          'invalid_state',
          'idempotent_creation_conflict',
          'A resource has already been created with this idempotency key',
          {
            conflicting_resource_id: seen,
          },
        );
      const answer = this.create(parts[0]!, (body[parts[0]!] ?? {}) as Record<string, any>);
      const id = (answer as { json?: Record<string, { id?: string }> }).json?.[parts[0]!]?.id;
      if (id) this.keys.set(`${parts[0]}|${key}`, id);
      return answer;
    }
    if (parts.length === 4 && parts[2] === 'actions' && parts[3] === 'cancel') return this.cancel(parts[0]!, parts[1]!);
    return notFound();
  }

  /**
   * The payer's page (the flow's authorisation_url): `?decision=exit` leaves it (to the exit_uri),
   * anything else completes it (the mandate set up) and goes to the redirect_uri.
   */
  private page(path: string): FakeAnswer {
    const url = new URL(path, 'http://fake');
    const flow = [...this.resources.values()].find((r) => r.authorisation_url === `${this.url}${url.pathname}`);
    if (!flow) return notFound();
    const exit = url.searchParams.get('decision') === 'exit';
    if (!exit) this.approve((flow.links as Record<string, string>).billing_request!);
    return { status: 302, json: {}, headers: { location: String(exit ? flow.exit_uri : flow.redirect_uri) } };
  }

  private get(parts: string[], query: URLSearchParams): FakeAnswer {
    const [kind, id] = parts;
    if (kind === 'creditors' && !id)
      return {
        status: 200,
        json: {
          creditors: [{ id: 'CR000FAKE', name: 'svc test creditor' }],
          meta: { cursors: { after: null, before: null }, limit: 1 },
        },
      };
    if (!kind) return notFound();
    if (id) {
      const found = this.resources.get(id);
      return found?.id.startsWith(PREFIX[kind] ?? '?') ? { status: 200, json: { [kind]: found } } : notFound();
    }
    const prefix = PREFIX[kind];
    if (!prefix) return notFound();
    const list = [...this.resources.values()].filter(
      (r) =>
        r.id.startsWith(prefix) &&
        [...query.entries()].every(
          ([k, v]) => k === 'limit' || k === 'after' || (r.links as Record<string, string> | undefined)?.[k] === v,
        ),
    );
    return { status: 200, json: { [kind]: list, meta: { cursors: { after: null, before: null }, limit: 500 } } };
  }

  private create(kind: string, body: Record<string, any>): FakeAnswer {
    switch (kind) {
      case 'billing_requests': {
        if (!body.mandate_request?.currency)
          return error(422, 'validation_failed', 'validation_failed', 'mandate_request.currency is required');
        const created = this.put('BRQ', {
          status: 'pending',
          mandate_request: { currency: body.mandate_request.currency, scheme: null },
          purpose_code: body.purpose_code ?? null,
          metadata: body.metadata ?? {},
          links: {},
        });
        const answer = { status: 201, json: { billing_requests: created } };
        return amountOf(created) === 2409 ? { ...answer, delayMs: 3000 } : answer;
      }
      case 'billing_request_flows': {
        const request = this.resources.get(String(body.links?.billing_request));
        if (!request) return error(422, 'invalid_state', 'billing_request_not_found', 'No such billing request');
        const flow = this.put('BRF', {
          status: 'created',
          redirect_uri: body.redirect_uri,
          exit_uri: body.exit_uri,
          authorisation_url: `${this.url}/pay/${request.id}`,
          links: { billing_request: request.id },
        });
        return { status: 201, json: { billing_request_flows: flow } };
      }
      case 'payments': {
        const mandate = this.resources.get(String(body.links?.mandate));
        if (!mandate) return error(422, 'invalid_state', 'mandate_not_found', 'Mandate not found');
        if (['failed', 'cancelled', 'expired', 'blocked'].includes(mandate.status))
          return error(422, 'invalid_state', 'mandate_is_inactive', 'The mandate is not active');
        if (!Number.isInteger(body.amount) || body.amount <= 0)
          return error(422, 'validation_failed', 'validation_failed', 'amount must be a positive integer');
        if (body.currency !== (mandate.currency as string))
          return error(422, 'validation_failed', 'validation_failed', 'currency must match the mandate');
        const payment = this.put('PM', {
          status: 'pending_submission',
          amount: body.amount,
          currency: body.currency,
          amount_refunded: 0,
          charge_date: body.charge_date ?? new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10),
          metadata: body.metadata ?? {},
          links: { mandate: mandate.id, creditor: 'CR000FAKE' },
        });
        return { status: 201, json: { payments: payment } };
      }
      case 'refunds': {
        const payment = this.resources.get(String(body.links?.payment));
        if (!payment) return error(422, 'invalid_state', 'payment_not_found', 'Payment not found');
        if (!['confirmed', 'paid_out'].includes(payment.status))
          return error(422, 'invalid_state', 'refund_payment_invalid_state', 'Payment must be confirmed or paid out');
        const before = this.refundsOf(payment.id).reduce((s, r) => s + (r.amount as number), 0);
        if (body.total_amount_confirmation !== before + body.amount)
          return error(
            422,
            'invalid_state',
            'total_amount_confirmation_invalid',
            'total_amount_confirmation does not match',
          );
        if (before + body.amount > (payment.amount as number))
          return error(422, 'invalid_state', 'refund_amount_exceeds_payment', 'Refund exceeds the payment');
        return {
          status: 201,
          json: { refunds: this.refundOf(payment.id, body.amount as number, 'created', body.metadata) },
        };
      }
      default:
        return notFound();
    }
  }

  private cancel(kind: string, id: string): FakeAnswer {
    const found = this.resources.get(id);
    if (!found) return notFound();
    if (found.status === 'cancelled' || found.status === 'fulfilled' || found.status === 'failed')
      return error(
        422,
        'invalid_state',
        kind === 'mandates' ? 'mandate_already_cancelled' : 'cancellation_failed',
        'Cannot cancel',
      );
    found.status = 'cancelled';
    return { status: 200, json: { [kind]: found } };
  }

  refundsOf(paymentId: string): Resource[] {
    return [...this.resources.values()].filter(
      (r) =>
        r.id.startsWith('RF') &&
        (r.links as Record<string, string>).payment === paymentId &&
        !['failed', 'cancelled'].includes(r.status),
    );
  }

  refundOf(paymentId: string, amount: number, status = 'created', metadata: Record<string, string> = {}): Resource {
    const payment = this.resources.get(paymentId)!;
    return this.put('RF', {
      status,
      amount,
      currency: payment.currency,
      metadata,
      links: { payment: paymentId, mandate: (payment.links as Record<string, string>).mandate },
    });
  }

  approve(id: string): Record<string, string> {
    const request = this.resources.get(id);
    if (request?.status !== 'pending') throw new Error(`billing request ${id} is not pending`);
    const currency = (request.mandate_request as { currency: string }).currency;
    const mandate = this.put('MD', {
      status: amountOf(request) === 2005 ? 'failed' : 'pending_submission',
      currency,
      scheme: SCHEMES[currency] ?? 'sepa_core',
      links: { customer: 'CU000FAKE', customer_bank_account: 'BA000FAKE' },
    });
    request.status = 'fulfilled';
    request.links = { mandate_request_mandate: mandate.id, customer: 'CU000FAKE' };
    return {};
  }

  collect(billingRequestId: string, amount: number, status = 'pending_submission'): Resource {
    const request = this.resources.get(billingRequestId)!;
    const mandate = (request.links as Record<string, string>).mandate_request_mandate!;
    return this.put('PM', {
      status,
      amount,
      currency: this.resources.get(mandate)!.currency,
      metadata: { svc_billing_request: billingRequestId },
      links: { mandate },
    });
  }
}

const PREFIX: Record<string, string> = {
  billing_requests: 'BRQ',
  billing_request_flows: 'BRF',
  mandates: 'MD',
  payments: 'PM',
  refunds: 'RF',
};
const SCHEMES: Record<string, string> = { GBP: 'bacs', EUR: 'sepa_core', SEK: 'autogiro', USD: 'ach' };

function amountOf(request: Resource): number | null {
  const text = (request.metadata as Record<string, string> | undefined)?.svc_amount;
  return text ? Number(text.split(' ')[0]) : null;
}

/** A delivery as GoCardless signs it: Webhook-Signature = hex HMAC-SHA256 of the body with the endpoint secret. */
export function signedDelivery(
  url: string,
  events: Array<Record<string, unknown>>,
  tamper = false,
): InboundWebhookRequest {
  const text = JSON.stringify({ events });
  const signature = createHmac('sha256', GOCARDLESS_FAKE_WEBHOOK_SECRET).update(text).digest('hex');
  const sent = tamper ? text.replace('"action":"', '"action":"x') : text;
  return {
    headers: {
      'content-type': 'application/json',
      'webhook-signature': signature,
      origin: 'https://api.gocardless.com',
    },
    rawBody: Buffer.from(sent),
    url,
  };
}

let eventSequence = 0;
export async function startGoCardlessFake(): Promise<GoCardlessFake> {
  const sim = new GoCardlessSimulation();
  const server = await startFakeServer((req) => sim.handle(req));
  sim.url = server.url;
  const eventOf = (resource: Resource, action: string) => {
    eventSequence += 1;
    const kind = resource.id.startsWith('RF') ? 'refunds' : 'payments';
    return {
      id: `EV${String(eventSequence).padStart(6, '0')}${Date.now().toString(36).toUpperCase()}`,
      created_at: now(),
      resource_type: kind,
      action,
      links: kind === 'refunds' ? { refund: resource.id } : { payment: resource.id },
      details: {
        origin: 'gocardless',
        cause: `payment_${action}`,
        description: `The ${kind.slice(0, -1)} is ${action}.`,
      },
      metadata: {},
    };
  };
  return {
    ...server,
    resources: sim.resources,
    failNext: (status) => {
      sim.fault = status;
    },
    approve: (id) => sim.approve(id),
    billingRequestOfKey: (key) =>
      [...sim.resources.values()].find(
        (r) => r.id.startsWith('BRQ') && (r.metadata as Record<string, string>).svc_attempt === key,
      ) ?? null,
    paymentsOf: (id) =>
      [...sim.resources.values()].filter(
        (r) => r.id.startsWith('PM') && (r.metadata as Record<string, string>).svc_billing_request === id,
      ),
    collect: (id, amount, status) => sim.collect(id, amount, status),
    refundOf: (id, amount, status) => sim.refundOf(id, amount, status),
    advance: (id, action, tamper = false) => {
      const resource = sim.resources.get(id);
      if (!resource) throw new Error(`no resource ${id}`);
      if (id.startsWith('PM') && !['chargeback_cancelled'].includes(action)) {
        const allowed = PAYMENT_NEXT[resource.status] ?? [];
        if (!allowed.includes(action)) throw new Error(`payment ${id} cannot go from ${resource.status} to ${action}`);
      }
      resource.status = action === 'chargeback_cancelled' ? 'confirmed' : action;
      return signedDelivery(`${server.url}/webhooks`, [eventOf(resource, action)], tamper);
    },
    event: (events, tamper) => signedDelivery(`${server.url}/webhooks`, events, tamper),
  };
}
