import type { ApiClient } from './api-client.ts';

/**
 * `svc trigger <kind>`: makes the sandbox produce an event of that kind the only honest way,
 * through real API calls on a `mock-card` payment service (authorize, capture, refund, payout, ...).
 * The test cards and amounts are the ones docs/sandbox.md lists for `mock-card`.
 */

type Step = (api: Api) => Promise<void>;

interface Api {
  client: ApiClient;
  serviceId: string;
  /** One line per call made, for the person at the terminal. */
  say(line: string): void;
}

interface Resource {
  id: string;
  status?: string;
}

const CURRENCY = 'USD';
const COUNTRY = 'US';

/** A card valid two years from now (MM/YY). */
function card(number: string) {
  const year = (new Date().getUTCFullYear() + 2) % 100;
  return { method: 'card', number, expiration_date: `12/${String(year).padStart(2, '0')}`, security_code: '123' };
}

async function post(api: Api, path: string, body: unknown, what: string): Promise<Resource> {
  const resource = (await api.client.call('POST', path, body)).body as unknown as Resource;
  // A capture's answer is its capture record, which has a status and no id of its own.
  api.say([`${what}:`, resource.id, resource.status].filter(Boolean).join(' '));
  return resource;
}

const authorize = (api: Api, number = '4111111111111111', amount = 1299) =>
  post(
    api,
    '/transactions',
    { amount, currency: CURRENCY, country: COUNTRY, payment_service_id: api.serviceId, payment_method: card(number) },
    'transaction',
  );

async function captured(api: Api, number?: string, amount?: number): Promise<Resource> {
  const txn = await authorize(api, number, amount);
  await post(api, `/transactions/${txn.id}/capture`, {}, 'capture');
  return txn;
}

async function refunded(api: Api, number?: string): Promise<void> {
  const txn = await captured(api, number);
  await post(api, `/transactions/${txn.id}/refunds`, { amount: 500, reason: 'svc trigger' }, 'refund');
}

const storeCard = (api: Api) => post(api, '/payment-methods', card('4111111111111111'), 'payment method');

const payout = (amount: number) => async (api: Api) =>
  void (await post(
    api,
    '/payouts',
    {
      amount,
      currency: CURRENCY,
      payment_service_id: api.serviceId,
      payment_method: {
        method: 'card',
        number: '4111111111111111',
        expiration_date: card('4111111111111111').expiration_date,
      },
    },
    'payout',
  ));

/** Event kind → what produces it (docs/webhooks.md, "Event kinds"). */
export const TRIGGERS: Record<string, { steps: Step; note?: string }> = {
  'transaction.created': { steps: async (api) => void (await authorize(api)) },
  'transaction.captured': { steps: async (api) => void (await captured(api)) },
  'capture.succeeded': { steps: async (api) => void (await captured(api)) },
  'capture.pending': {
    steps: async (api) => void (await captured(api, undefined, 2077)),
    note: 'amount 2077: the capture stays pending until a status query',
  },
  'transaction.voided': {
    steps: async (api) => void (await post(api, `/transactions/${(await authorize(api)).id}/void`, undefined, 'void')),
  },
  'transaction.settled': {
    steps: async (api) => void (await captured(api)),
    note: 'transaction.settled follows SETTLEMENT_DELAY_SECONDS (default 60) after the capture',
  },
  'refund.created': { steps: (api) => refunded(api) },
  'refund.succeeded': { steps: (api) => refunded(api) },
  'refund.failed': {
    steps: (api) => refunded(api, '4000000000000341'),
    note: 'card 4000000000000341: every refund is declined',
  },
  'payment_method.created': { steps: async (api) => void (await storeCard(api)) },
  'payment_method.deleted': {
    steps: async (api) => {
      const stored = await storeCard(api);
      await api.client.call('DELETE', `/payment-methods/${stored.id}`);
      api.say(`payment method ${stored.id} deleted`);
    },
  },
  'payout.succeeded': { steps: payout(2500) },
  'payout.pending': { steps: payout(3077), note: 'amount 3077: pending until the reconcile-payouts job' },
  'payout.declined': { steps: payout(3005), note: 'amount 3005: declined, do_not_honor' },
  'payout.failed': { steps: payout(3096), note: 'amount 3096: failed, service_error' },
};

/** The merchant account's active `mock-card` service accepting USD, or a new one. */
async function mockCardService(client: ApiClient, say: (line: string) => void): Promise<string> {
  const list = (await client.call('GET', '/payment-services?limit=100')).body as {
    items?: Array<{
      id: string;
      payment_service_definition_id: string;
      active: boolean;
      accepted_currencies: string[];
    }>;
  };
  const found = list.items?.find(
    (s) => s.payment_service_definition_id === 'mock-card' && s.active && s.accepted_currencies.includes(CURRENCY),
  );
  if (found) return found.id;
  const created = (
    await client.call('POST', '/payment-services', {
      display_name: 'svc trigger (mock-card)',
      payment_service_definition_id: 'mock-card',
      fields: [{ key: 'merchant_id', value: 'svc-trigger' }],
      accepted_currencies: [CURRENCY],
      accepted_countries: [COUNTRY],
    })
  ).body as { id: string };
  say(`payment service (mock-card): ${created.id} created`);
  return created.id;
}

/**
 * The server's environment, as its OpenAPI document names it (`this server (sandbox)`, from
 * src/http/openapi.ts): test payments on mock-card have no place on a production instance.
 */
async function serverEnvironment(client: ApiClient): Promise<string | null> {
  const doc = (await client.call('GET', '/openapi.json')).body as { servers?: Array<{ description?: string }> };
  return /^this server \((\w+)\)$/.exec(doc.servers?.[0]?.description ?? '')?.[1] ?? null;
}

/** Runs the steps of `kind`. Returns the exit code: 2 for a kind it cannot produce. */
export async function trigger(
  client: ApiClient,
  kind: string,
  out: (line: string) => void,
  err: (line: string) => void,
): Promise<number> {
  const entry = TRIGGERS[kind];
  if (!entry) {
    err(`svc trigger cannot produce "${kind}". Kinds: ${Object.keys(TRIGGERS).join(', ')}`);
    return 2;
  }
  const environment = await serverEnvironment(client);
  if (environment !== 'sandbox') {
    err(
      `svc trigger runs against sandbox servers only (it makes test payments on mock-card); this server is ${environment ?? 'of an unknown environment'}`,
    );
    return 1;
  }
  const serviceId = await mockCardService(client, out);
  await entry.steps({ client, serviceId, say: out });
  out(`triggered ${kind} in merchant account ${client.merchantAccountId}${entry.note ? ` (${entry.note})` : ''}`);
  return 0;
}
