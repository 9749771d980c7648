import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from '../../src/lib/ids.ts';
import { StripeFake } from '../fakes/stripe-fake.ts';
import type { TestApp } from '../helpers/build-test-app.ts';
import { createMerchantAccount } from '../helpers/factories.ts';
import { buildProductionApp, seedSandboxPaymentService } from '../helpers/production.ts';
import { sampleOf } from '../helpers/schema-sample.ts';
import { card } from '../helpers/transactions.ts';

/**
 * Production never writes a simulated value (issue 50 item 4). A server with
 * ENVIRONMENT=production, a real connector (stripe-card, against the Stripe fake) and, as a
 * database switched from the sandbox would hold them, a mock-card and a mock-paybybank payment
 * service. Every route the app registered is called (a body built from its schema, or one below
 * that reaches a simulation), the job queue is run, and then every row written or changed since the
 * switch is searched for what only the simulations write (MARKERS), and the tables only a
 * simulation fills must have gained no row. A new route is walked the day it is added.
 */

/** What the simulations write, found in their code; none may appear in a row written in production. */
const MARKERS = [
  'sandbox-report-',
  'sandbox-settlement-', // settlements.service.ts: the sandbox's settlement report
  'sandbox-chargeback', // chargebacks.service.ts: the sandbox's dispute report lines
  'sandbox-3ds-server', // three-d-secure.ts: the simulated 3DS server's error data
  '/sandbox/', // the sandbox approval, 3DS challenge and Paze pages, the sandbox gift card page
  'mock_txn_',
  'mock_cap_',
  'mock_ref_',
  'mock_tok_',
  'mock_pay_',
  'mock_pbb_',
  'mock_ses_', // the mock connectors' provider ids
  'mock-gcr-',
  'mock-gcf-',
  'mock-gca-',
  'mock-gci-',
  'MOCK_', // the mock gift card service's ids and codes
  'mock-card',
  'mock-paybybank',
  'mock-gift-card', // the sandbox definitions, named by what used them
];

/**
 * Tables only a simulation fills in production today: the network token service and the account
 * updater are simulated (no real one is configured), 3DS scenarios and challenges belong to the
 * sandbox's 3DS server, and every gift card operation goes to the mock gift card service.
 */
const SIMULATION_ONLY_TABLES = [
  'network_tokens',
  'account_updater_jobs',
  'account_updater_inquiries',
  'three_ds_scenarios',
  'three_ds_challenges',
  'gift_cards',
  'gift_card_redemptions',
  'gift_card_activations',
  'gift_card_issuances',
];

const stripe = new StripeFake();
let t: TestApp;
let m: string;
const ids: Record<string, string> = {};
let before: Map<string, Set<string>>;

const STORED_CARD = { method: 'card', number: '4111111111111111', expiration_date: '12/39' };
const THREE_DS_CARD = '4000000000003220';

/**
 * Bodies (one call each) for the routes that reach a simulation, keyed `METHOD url`: the sandbox
 * services by id, the simulated network tokens, account updater and 3DS server, the gift card
 * simulator. Every other route gets the body of its schema.
 */
const CALLS: Record<string, () => Array<{ path?: Record<string, string>; body?: unknown }>> = {
  'POST /payment-services': () => [
    {
      body: {
        display_name: 'Mock card',
        payment_service_definition_id: 'mock-card',
        fields: [{ key: 'merchant_id', value: 'm' }],
        accepted_currencies: ['USD'],
        accepted_countries: ['US'],
      },
    },
    {
      body: {
        display_name: 'Bank',
        payment_service_definition_id: 'mock-paybybank',
        fields: [{ key: 'merchant_id', value: 'm' }],
        accepted_currencies: ['EUR'],
        accepted_countries: ['GB'],
      },
    },
  ],
  'PUT /payment-services/:payment_service_id': () => [
    {
      path: { payment_service_id: ids.sandbox_card! },
      body: { display_name: 'Renamed', three_d_secure_enabled: true },
    },
  ],
  'POST /payment-services/verify': () => [
    { body: { payment_service_definition_id: 'mock-card', fields: [{ key: 'merchant_id', value: 'm' }] } },
  ],
  'POST /payment-services/:payment_service_id/sessions': () => [
    { path: { payment_service_id: ids.sandbox_card! }, body: {} },
  ],
  'POST /payment-service-definitions/:payment_service_definition_id/sessions': () => [
    { path: { payment_service_definition_id: 'mock-card' }, body: {} },
  ],
  'POST /transactions': () => [
    // Routed by position: the sandbox service comes first.
    {
      body: {
        amount: 1000,
        currency: 'USD',
        country: 'US',
        intent: 'capture',
        payment_method: card('4111111111111111'),
      },
    },
    {
      body: {
        amount: 1100,
        currency: 'USD',
        country: 'US',
        payment_service_id: ids.sandbox_card,
        payment_method: card('4111111111111111'),
      },
    },
    {
      body: {
        amount: 1200,
        currency: 'EUR',
        country: 'GB',
        payment_method: {
          method: 'paybybank',
          country: 'GB',
          currency: 'EUR',
          redirect_url: 'https://shop.example/back',
        },
      },
    },
    // The real service has 3DS enabled: no simulated 3DS server may authenticate or challenge for it.
    {
      body: {
        amount: 1300,
        currency: 'USD',
        country: 'US',
        intent: 'capture',
        payment_service_id: ids.stripe,
        payment_method: card('4242424242424242'),
      },
    },
    {
      body: {
        amount: 1400,
        currency: 'USD',
        country: 'US',
        payment_service_id: ids.stripe,
        payment_method: card(THREE_DS_CARD),
      },
    },
    {
      body: {
        amount: 500,
        currency: 'USD',
        country: 'US',
        gift_cards: [{ number: '6036281000000000001', pin: '1234' }],
      },
    },
  ],
  'POST /payment-methods/:payment_method_id/network-tokens': () => [
    { body: { merchant_initiated: false, is_subsequent_payment: false } },
  ],
  'POST /account-updater/jobs': () => [{ body: { payment_method_ids: [ids.payment_method_id] } }],
  'POST /three-ds-scenarios': () => [
    {
      body: {
        conditions: { amount: 1400 },
        outcome: { version: '2.2.0', authentication: { transaction_status: 'Y' } },
      },
    },
  ],
  'POST /gift-cards': () => [{ body: { number: '6036281000000000001', pin: '1234' } }],
  'POST /gift-cards/balances': () => [{ body: { items: [{ number: '6036281000000000001', pin: '1234' }] } }],
  'POST /gift-cards/activations': () => [{ body: { number: '6036282000000000001', pin: '1234', store: true } }],
  'POST /gift-cards/issuances': () => [{ body: { theme: 'birthday', amount: 100, currency: 'USD' } }],
  'POST /payouts': () => [
    {
      body: {
        amount: 100,
        currency: 'USD',
        payment_service_id: ids.sandbox_card,
        payment_method: { method: 'id', id: ids.payment_method_id },
      },
    },
  ],
  'POST /payment-methods/:payment_method_id/payment-service-tokens': () => [
    { body: { payment_service_id: ids.sandbox_card, redirect_url: 'https://shop.example/return' } },
  ],
};

/** Every row of every table as JSON text (the tables this test reads, by name). */
async function rowsByTable(): Promise<Map<string, Set<string>>> {
  const { rows: tables } = await sql<{ table_name: string }>`
    select table_name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE' order by table_name`.execute(
    t.deps.db,
  );
  const out = new Map<string, Set<string>>();
  for (const { table_name: table } of tables) {
    const { rows } = await sql<{ row: string }>`select to_jsonb(x)::text as row from ${sql.table(table)} x`.execute(
      t.deps.db,
    );
    out.set(table, new Set(rows.map((r) => r.row)));
  }
  return out;
}

async function fixture(method: string, url: string, payload: unknown): Promise<string> {
  const res = await t.request({
    method: method as 'POST',
    url,
    merchantAccountId: m,
    payload: payload as Record<string, unknown>,
  });
  expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
  return res.json().id;
}

beforeAll(async () => {
  await stripe.start();
  t = await buildProductionApp(
    { NETWORK_TOKENS_API_PROVISIONING: 'true', SETTLEMENT_DELAY_SECONDS: '0' },
    { stripeApiBaseUrl: stripe.url },
  );
  m = await createMerchantAccount(t.deps);
  ids.merchant_account_id = m;
  // What the database held before it was switched to production.
  ids.sandbox_card = await seedSandboxPaymentService(t, m, 'mock-card', { position: 0 });
  ids.sandbox_bank = await seedSandboxPaymentService(t, m, 'mock-paybybank', {
    currencies: ['EUR'],
    countries: ['GB'],
  });
  before = await rowsByTable();
  // Configured in production, through the API.
  ids.stripe = await fixture('POST', '/payment-services', {
    display_name: 'Stripe',
    payment_service_definition_id: 'stripe-card',
    position: 5,
    three_d_secure_enabled: true,
    payment_method_tokenization_enabled: true,
    fields: [
      { key: 'secret_key', value: stripe.secretKey },
      { key: 'webhook_signing_secret', value: 'whsec_walk' },
    ],
    accepted_currencies: ['USD'],
    accepted_countries: ['US'],
  });
  ids.payment_service_id = ids.stripe;
  ids.buyer_id = await fixture('POST', '/buyers', {
    display_name: 'Pat',
    billing_details: { first_name: 'Pat', email_address: 'pat@example.com' },
  });
  ids.payment_method_id = await fixture('POST', '/payment-methods', { ...STORED_CARD, buyer_id: ids.buyer_id });
  ids.transaction_id = await fixture('POST', '/transactions', {
    amount: 2000,
    currency: 'USD',
    country: 'US',
    payment_service_id: ids.stripe,
    payment_method: card('4242424242424242'),
  });
}, 60_000);
afterAll(async () => {
  await t.close();
  await stripe.stop();
});

/** The dashboard console's files (src/http/console.ts): they write nothing, and answer 503 where no build exists. */
const CONSOLE_FILES = ['/dashboard/*', '/dashboard/assets/*'];

function walkedRoutes() {
  return t.registeredRoutes.filter(
    (route) => route.method !== 'HEAD' && !route.url.startsWith('/test-only') && !CONSOLE_FILES.includes(route.url),
  );
}

async function callRoute(route: ReturnType<typeof walkedRoutes>[number]): Promise<number[]> {
  const key = `${route.method} ${route.url}`;
  const schema = route.schema as { body?: Record<string, unknown> } | undefined;
  const calls = CALLS[key]?.() ?? [
    { body: ['POST', 'PUT', 'PATCH'].includes(route.method) ? (sampleOf(schema?.body, { ids }) ?? {}) : undefined },
  ];
  const statuses: number[] = [];
  for (const call of calls) {
    const params = { ...ids, ...call.path };
    const url = route.url.replace(/:([a-z_]+)/g, (_m, param: string) => params[param] ?? uuidv7());
    const res = await t.request({
      method: route.method as 'GET',
      url,
      merchantAccountId: m,
      ...(call.body === undefined ? {} : { payload: call.body as Record<string, unknown> }),
    });
    statuses.push(res.statusCode);
  }
  return statuses;
}

/** What the rows written or changed since `before` hold that only a simulation writes. */
async function simulatedValues(): Promise<string[]> {
  const after = await rowsByTable();
  const found: string[] = [];
  for (const [table, rows] of after) {
    const old = before.get(table) ?? new Set();
    const written = [...rows].filter((row) => !old.has(row));
    if (SIMULATION_ONLY_TABLES.includes(table) && written.length > 0)
      found.push(`${table}: ${written.length} row(s) only a simulation writes`);
    for (const row of written) {
      const marker = MARKERS.find((candidate) => row.includes(candidate));
      if (marker) found.push(`${table}: "${marker}" in ${row.slice(0, 300)}`);
      if (table !== 'transactions') continue;
      // The walk sends no three_d_secure_data: a 3DS result came from the simulated 3DS server; an
      // anti-fraud decision from the sandbox's (production has no anti-fraud service yet).
      const transaction = JSON.parse(row);
      if (transaction.three_d_secure !== null)
        found.push(`transactions: a simulated 3DS result in ${row.slice(0, 300)}`);
      if (transaction.anti_fraud_decision !== null)
        found.push(`transactions: a simulated anti-fraud decision in ${row.slice(0, 300)}`);
    }
  }
  return found;
}

describe('production', () => {
  it('writes no sandbox-generated value on any route, nor in the jobs they enqueue', async () => {
    const routes = walkedRoutes();
    const statuses: Record<string, number[]> = {};
    // Deletions last and searched separately: deleting a payment method takes its network tokens with it.
    for (const route of routes.filter((r) => r.method !== 'DELETE'))
      statuses[`${route.method} ${route.url}`] = await callRoute(route);
    await t.deps.queue.drain(t.deps);
    const found = await simulatedValues();
    for (const route of routes.filter((r) => r.method === 'DELETE'))
      statuses[`${route.method} ${route.url}`] = await callRoute(route);
    await t.deps.queue.drain(t.deps);
    found.push(...(await simulatedValues()));
    expect(Object.keys(statuses).length).toBeGreaterThan(150);
    expect([...new Set(found)]).toEqual([]);
    // Nothing failed on the way (a 5xx could hide a write the search cannot see).
    expect(Object.entries(statuses).filter(([, codes]) => codes.some((code) => code >= 500))).toEqual([]);
  }, 180_000);
});
