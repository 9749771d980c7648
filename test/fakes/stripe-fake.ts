import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { amountProblem, scenarioOfCard, type FakeCardScenario } from './stripe-fake-cards.ts';
import {
  captureIntent,
  cancelIntent,
  chargeOf,
  confirmIntent,
  createRefund,
  render,
  type FakeState,
  type Reply,
} from './stripe-fake-payments.ts';
import { connectFieldsOf, connectProblem, otherAccount, refundWithConnect } from './stripe-fake-connect.ts';
import {
  bookCapture,
  closeDispute,
  listBalanceTransactions,
  listPayouts,
  newBalance,
  openDispute,
  payOut,
} from './stripe-fake-balance.ts';

/**
 * A local fake of Stripe's HTTP API on 127.0.0.1, built from Stripe's documented requests and
 * responses (https://docs.stripe.com/api). It checks what a client sends, the way Stripe does:
 * the `Authorization: Bearer` secret key (401), an `Idempotency-Key` on every POST (replayed
 * answers for the same key and body, 400 `idempotency_error` for another body), amounts in
 * Stripe's units, lowercase currencies and the capture method. Faults are injected per request:
 * an HTTP status (401/429/500), a slow answer, or a dropped connection after the work was done.
 */

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

export type Fault = { status: 401 | 429 | 500 } | { delayMs: number } | { drop: true };

/** Stripe's form encoding (`a[b][0]=x`) → nested objects. */
export function parseForm(raw: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const pair of raw.split('&').filter(Boolean)) {
    const [k, v = ''] = pair.split('=');
    const key = decodeURIComponent(k!.replace(/\+/g, ' '));
    const value = decodeURIComponent(v.replace(/\+/g, ' '));
    const path = key.split(/[[\]]+/).filter(Boolean);
    let node = out;
    for (const [i, part] of path.entries()) {
      if (i === path.length - 1) node[part] = value;
      else node = (node[part] ??= {}) as Record<string, unknown>;
    }
  }
  return out;
}

const error = (status: number, type: string, message: string, extra: Record<string, unknown> = {}): Reply => ({
  status,
  body: { error: { type, message, ...extra } },
});
/** A GET asked Stripe to expand `field` (`expand[0]=latest_charge`). */
const expands = (url: URL, field: string) =>
  [...url.searchParams.entries()].some(([key, value]) => /^expand\[\d*\]$/.test(key) && value === field);

export class StripeFake {
  readonly requests: RecordedRequest[] = [];
  readonly state: FakeState = {
    intents: new Map(),
    refunds: new Map(),
    paymentMethods: new Map(),
    customers: new Map(),
    balance: newBalance(),
    connectRefunds: new Map(),
    seq: 0,
  };
  private readonly idempotency = new Map<string, { fingerprint: string; reply: Reply }>();
  private readonly faults: Array<{ fault: Fault; path: string | null; skip: number }> = [];
  private server: Server | null = null;
  url = '';
  /** Stripe enabled `mit_exemption` (network transaction ids of other processors) on this account. */
  mitExemptionEnabled = true;

  constructor(readonly secretKey = `sk_test_${randomBytes(12).toString('hex')}`) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** The next `count` requests (to paths starting with `path`, when given; after `skip` of them went through) meet this fault. */
  failNext(fault: Fault, count = 1, path: string | null = null, skip = 0): void {
    for (let i = 0; i < count; i++) this.faults.push({ fault, path, skip });
  }

  private takeFault(path: string): Fault | undefined {
    const index = this.faults.findIndex((f) => f.path === null || path.startsWith(f.path));
    if (index < 0) return undefined;
    if (this.faults[index]!.skip > 0) {
      this.faults[index]!.skip--;
      return undefined;
    }
    return this.faults.splice(index, 1)[0]!.fault;
  }

  /** The buyer's bank disputes the PaymentIntent's captured amount (or `amount`): a dispute and its balance transaction. */
  dispute(paymentIntent: string, amount?: number): Record<string, unknown> {
    const intent = this.state.intents.get(paymentIntent)!;
    return openDispute(
      this.state.balance,
      intent,
      intent._charge as Record<string, unknown>,
      amount ?? Number(intent.amount_received),
    );
  }

  /** The dispute is closed, won (the amount is credited back) or lost. */
  closeDispute(id: string, status: 'won' | 'lost'): Record<string, unknown> {
    return closeDispute(this.state.balance, id, status);
  }

  /** Stripe's automatic payout of everything not paid out yet in `currency`; null when there is nothing. */
  payout(currency = 'usd'): Record<string, unknown> | null {
    return payOut(this.state.balance, currency);
  }

  /** The buyer finished (or failed) the 3DS page of a PaymentIntent in `requires_action`. */
  completeAuthentication(id: string, succeeded: boolean): void {
    const intent = this.state.intents.get(id)!;
    intent.next_action = null;
    if (!succeeded)
      Object.assign(intent, {
        status: 'requires_payment_method',
        last_payment_error: {
          type: 'card_error',
          code: 'payment_intent_authentication_failure',
          message: 'The provided PaymentMethod has failed authentication.',
        },
      });
    else if (intent.capture_method === 'manual')
      Object.assign(intent, { status: 'requires_capture', amount_capturable: intent.amount });
    else Object.assign(intent, { status: 'succeeded', amount_received: intent.amount });
    // An authenticated payment is authorized: its charge exists, with the network's id.
    if (succeeded)
      intent._charge ??= chargeOf(this.state, intent, this.state.paymentMethods.get(String(intent.payment_method))!);
    if (succeeded && intent.status === 'succeeded')
      bookCapture(
        this.state.balance,
        intent,
        Object.assign(intent._charge as Record<string, unknown>, { captured: true }),
        Number(intent.amount),
        false,
      );
  }

  /** A webhook event signed the way Stripe signs (`Stripe-Signature: t=...,v1=HMAC-SHA256(secret, t.body)`). */
  static signedEvent(
    secret: string,
    event: Record<string, unknown>,
    timestamp = Math.floor(Date.now() / 1000),
  ): { body: string; signature: string } {
    const body = JSON.stringify({
      object: 'event',
      api_version: '2026-10-28.endive',
      created: timestamp,
      livemode: false,
      ...event,
    });
    const v1 = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
    return { body, signature: `t=${timestamp},v1=${v1}` };
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', 'http://fake');
    const body = parseForm(req.method === 'GET' ? url.search.slice(1) : Buffer.concat(chunks).toString('utf8'));
    this.requests.push({ method: req.method ?? 'GET', path: url.pathname, headers: req.headers, body });
    const fault = this.takeFault(url.pathname);
    if (fault && 'delayMs' in fault) await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
    if (fault && 'status' in fault)
      return this.send(
        res,
        fault.status === 401
          ? error(401, 'invalid_request_error', 'Invalid API Key provided')
          : fault.status === 429
            ? error(429, 'invalid_request_error', 'Too many requests', { code: 'rate_limit' })
            : error(500, 'api_error', "Something went wrong on Stripe's end."),
      );
    const reply = this.route(req, url, body);
    if (fault && 'drop' in fault) return void res.socket?.destroy();
    this.send(res, reply);
  }

  private send(res: ServerResponse, reply: Reply): void {
    res.writeHead(reply.status, {
      'content-type': 'application/json',
      'request-id': `req_${++this.state.seq}`,
      ...(reply.replayed ? { 'idempotent-replayed': 'true' } : {}),
    });
    res.end(JSON.stringify(reply.body));
  }

  private route(req: IncomingMessage, url: URL, body: Record<string, unknown>): Reply {
    if (req.headers.authorization !== `Bearer ${this.secretKey}`)
      return error(401, 'invalid_request_error', 'Invalid API Key provided');
    const account = typeof req.headers['stripe-account'] === 'string' ? req.headers['stripe-account'] : null;
    if (req.method !== 'POST') return this.read(url, account);
    const key = req.headers['idempotency-key'];
    if (typeof key !== 'string' || key.length === 0)
      return error(400, 'invalid_request_error', 'The fake requires an Idempotency-Key on every POST');
    const fingerprint = `${url.pathname} ${JSON.stringify(body)}`;
    const seen = this.idempotency.get(key);
    if (seen)
      return seen.fingerprint === fingerprint
        ? { ...seen.reply, replayed: true }
        : error(
            400,
            'idempotency_error',
            'Keys for idempotent requests can only be used with the same parameters they were first used with.',
          );
    const reply = this.write(url.pathname, body, account);
    // Stripe saves the answer of a request that ran, errors included, except 5xx and 429.
    this.idempotency.set(key, { fingerprint, reply });
    return reply;
  }

  private write(path: string, body: Record<string, unknown>, account: string | null): Reply {
    const [, , resource, id, verb] = path.split('/');
    const intentId = resource === 'refunds' ? String(body.payment_intent ?? '') : (id ?? '');
    const elsewhere = otherAccount(this.state.intents.get(intentId), account, 'payment_intent', intentId);
    if (elsewhere) return elsewhere;
    if (resource === 'payment_methods' && !id) return this.createPaymentMethod(body);
    if (resource === 'payment_intents' && !id) {
      const problem = amountProblem(body.amount, String(body.currency ?? ''));
      if (problem)
        return error(400, 'invalid_request_error', problem, { code: 'parameter_invalid_integer', param: 'amount' });
      if (!['manual', 'automatic'].includes(String(body.capture_method)))
        return error(400, 'invalid_request_error', 'capture_method must be manual or automatic here', {
          param: 'capture_method',
        });
      const mit = this.mitExemptionProblem(body);
      if (mit) return mit;
      const connect = connectProblem(body, account);
      if (connect) return connect;
      return confirmIntent(this.state, body, this.url, connectFieldsOf(body, account));
    }
    if (resource === 'payment_intents' && verb === 'capture') return captureIntent(this.state, id!, body);
    if (resource === 'payment_intents' && verb === 'cancel') return cancelIntent(this.state, id!);
    if (resource === 'refunds') return refundWithConnect(this.state, body, createRefund);
    if (resource === 'customers') return this.createCustomer(body);
    return error(404, 'invalid_request_error', `Unrecognized request URL (POST: ${path})`);
  }

  private read(url: URL, account: string | null): Reply {
    const [, , resource, id] = url.pathname.split('/');
    const intentId = resource === 'refunds' ? (url.searchParams.get('payment_intent') ?? '') : (id ?? '');
    const elsewhere = otherAccount(this.state.intents.get(intentId), account, 'payment_intent', intentId);
    if (elsewhere) return elsewhere;
    if (resource === 'balance')
      return {
        status: 200,
        body: { object: 'balance', available: [{ amount: 0, currency: 'usd' }], livemode: false, pending: [] },
      };
    if (resource === 'payment_intents' && id === 'search') {
      const attempt = /metadata\['attempt_id'\]:'([^']+)'/.exec(url.searchParams.get('query') ?? '')?.[1];
      const data = [...this.state.intents.values()]
        .filter(
          (i) => (i.metadata as Record<string, string>).attempt_id === attempt && (i._account ?? null) === account,
        )
        .map((i) => render(i, expands(url, 'data.latest_charge')));
      return {
        status: 200,
        body: { object: 'search_result', data, has_more: false, url: '/v1/payment_intents/search' },
      };
    }
    if (resource === 'payment_intents' && id) {
      const intent = this.state.intents.get(id);
      return intent
        ? { status: 200, body: render(intent, expands(url, 'latest_charge')) }
        : error(404, 'invalid_request_error', `No such payment_intent: '${id}'`, { code: 'resource_missing' });
    }
    if (resource === 'balance_transactions' && !id)
      return { status: 200, body: listBalanceTransactions(this.state.balance, url.searchParams) };
    if (resource === 'payouts' && !id) return { status: 200, body: listPayouts(this.state.balance, url.searchParams) };
    if (resource === 'payouts' && id) {
      const payout = this.state.balance.payouts.get(id);
      return payout
        ? { status: 200, body: payout }
        : error(404, 'invalid_request_error', `No such payout: '${id}'`, { code: 'resource_missing' });
    }
    if (resource === 'refunds') {
      const data = [...this.state.refunds.values()].filter(
        (r) => r.payment_intent === url.searchParams.get('payment_intent'),
      );
      return { status: 200, body: { object: 'list', data, has_more: false, url: '/v1/refunds' } };
    }
    return error(404, 'invalid_request_error', `Unrecognized request URL (GET: ${url.pathname})`);
  }

  /**
   * `payment_method_options[card][mit_exemption]`: the network transaction id of the
   * customer-initiated payment a merchant-initiated one follows, for a card Stripe did not store.
   * Stripe enables the parameter per account (`mitExemptionEnabled`; otherwise its usual answer to
   * an unknown parameter); an exemption of an on-session payment is refused (the fake is stricter
   * than Stripe's documented checks there).
   */
  private mitExemptionProblem(body: Record<string, unknown>): Reply | null {
    const exemption = (
      (body.payment_method_options as Record<string, unknown> | undefined)?.card as Record<string, unknown> | undefined
    )?.mit_exemption as Record<string, unknown> | undefined;
    if (exemption === undefined) return null;
    const param = 'payment_method_options[card][mit_exemption]';
    if (!this.mitExemptionEnabled)
      return error(400, 'invalid_request_error', `Received unknown parameter: ${param}`, { param });
    if (typeof exemption.network_transaction_id !== 'string' || !/^\w{1,100}$/.test(exemption.network_transaction_id))
      return error(400, 'invalid_request_error', `Invalid ${param}[network_transaction_id]`, {
        param: `${param}[network_transaction_id]`,
      });
    if (body.off_session !== 'true')
      return error(
        400,
        'invalid_request_error',
        `${param} needs off_session=true: it marks a merchant-initiated payment`,
        { param },
      );
    return null;
  }

  private createPaymentMethod(body: Record<string, unknown>): Reply {
    const card = body.card as Record<string, string> | undefined;
    if (body.type !== 'card' || !card?.number)
      return error(400, 'invalid_request_error', 'Missing required param: card[number].', { param: 'card[number]' });
    if (!/^\d{12,19}$/.test(card.number))
      return error(402, 'card_error', 'Your card number is incorrect.', { code: 'incorrect_number' });
    const id = `pm_${++this.state.seq}${randomBytes(6).toString('hex')}`;
    const scenario: FakeCardScenario = scenarioOfCard(card.number);
    this.state.paymentMethods.set(id, {
      id,
      scenario,
      last4: card.number.slice(-4),
      cvc: Boolean(card.cvc),
      customer: null,
    });
    return {
      status: 200,
      body: {
        id,
        object: 'payment_method',
        type: 'card',
        card: {
          brand: card.number.startsWith('5') ? 'mastercard' : 'visa',
          last4: card.number.slice(-4),
          exp_month: Number(card.exp_month),
          exp_year: Number(card.exp_year),
        },
        customer: null,
      },
    };
  }

  private createCustomer(body: Record<string, unknown>): Reply {
    const id = `cus_${++this.state.seq}${randomBytes(6).toString('hex')}`;
    const pm = this.state.paymentMethods.get(String(body.payment_method ?? ''));
    if (body.payment_method && !pm)
      return error(400, 'invalid_request_error', `No such PaymentMethod: '${String(body.payment_method)}'`, {
        code: 'resource_missing',
      });
    if (pm) pm.customer = id;
    this.state.customers.set(id, { id, metadata: body.metadata ?? {} });
    return {
      status: 200,
      body: {
        id,
        object: 'customer',
        metadata: body.metadata ?? {},
        invoice_settings: { default_payment_method: null },
      },
    };
  }
}
