/**
 * `npm run attack:card-testing`: a card-testing attack replayed against a real listening server
 * (docs/risk.md, "Card-testing guard"). The app runs in this process on an in-memory PGlite and
 * listens on 127.0.0.1 (behind a "proxy" on loopback: `TRUST_PROXY=loopback`, so the hosted page
 * takes the client's address from `X-Forwarded-For`); every request goes over HTTP with fetch.
 *
 * Two attacks, each from its own address, each trying `ATTACK_CARDS` (default 300) distinct cards
 * that pass the Luhn check for a small amount the sandbox processor declines (20.05, do_not_honor):
 * - through the API, `POST /transactions` with the attacker's address in `X-Forwarded-For` (as a
 *   merchant's server passes its buyer's address);
 * - through the hosted payment page of one payment link: open the page, start a checkout session,
 *   put the card in its fields, pay (what the page's script does).
 * Meanwhile a legitimate buyer from another address pays every 25 attempts, through the API and
 * through a page of its own. Prints how many attempts reached the payment provider before the guard
 * stopped the source, how many were stopped, whether the legitimate buyer kept paying, and the
 * incidents raised. The guard's settings are the server's (`CARD_TESTING_*`, defaults unless set).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { AuthorizeRequest } from '../src/connectors/connector.ts';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createRuntime } from '../src/deps.ts';
import { createMerchantAccount } from '../test/helpers/factories.ts';
import { luhnCards } from '../test/helpers/test-cards.ts';
import { createTestKeyPair } from '../test/helpers/tokens.ts';

const CARDS = Number(process.env.ATTACK_CARDS ?? 300);
const PROBE_AMOUNT = 2005;
const ATTACKER_API = '203.0.113.66';
const ATTACKER_PAGE = '203.0.113.77';
const BUYER = '198.51.100.20';
const LEGIT_EVERY = 25;

const log = (message: string) => process.stderr.write(`[attack:card-testing] ${message}\n`);

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-card-testing-'));
const config = loadConfig({
  ...process.env,
  DATA_DIR: dataDir,
  LOG_LEVEL: 'silent',
  TRUST_PROXY: 'loopback',
  // The page's own budget per link is raised so that the guard, not the rate limit, is what is measured.
  EMBED_RATE_LIMIT_PER_MINUTE: '100000',
});
const runtime = await createRuntime(config, { inMemory: true });
const deps = runtime.deps;
const app = await buildApp(deps, { logStream: new Writable({ write: (_chunk, _encoding, done) => done() }) });
const base = await app.listen({ port: 0, host: '127.0.0.1' });
const token = await (await createTestKeyPair(deps)).token();
const merchant = await createMerchantAccount(deps, { display_name: 'card-testing attack' });

// Every authorization the sandbox processor receives, by the address the attempt came from.
const reached = new Map<string, number>();
let currentSource = '';
const connector = deps.connectors.get('mock-card');
const authorize = connector.authorize.bind(connector);
connector.authorize = (request: AuthorizeRequest) => {
  reached.set(currentSource, (reached.get(currentSource) ?? 0) + 1);
  return authorize(request);
};

async function api(method: string, url: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      'x-svc-merchant-account-id': merchant,
      'content-type': 'application/json',
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

await api('POST', '/payment-services', {
  display_name: 'Sandbox cards',
  payment_service_definition_id: 'mock-card',
  fields: [{ key: 'merchant_id', value: 'attack-bench' }],
  accepted_currencies: ['USD'],
  accepted_countries: ['US'],
});

const card = (number: string) => ({ method: 'card', number, expiration_date: '12/40', security_code: '123' });

/** One payment through the API from `ip`: its error code, or its status when it has none. */
async function payByApi(number: string, ip: string, amount: number): Promise<string> {
  currentSource = ip;
  const txn = await api(
    'POST',
    '/transactions',
    { amount, currency: 'USD', country: 'US', payment_method: card(number) },
    { 'x-forwarded-for': ip },
  );
  return txn.error_code ?? txn.status;
}

/** What the hosted page's script does from `ip`: open the page, a session, the card in its fields, the payment. */
async function payOnPage(url: string, number: string, ip: string): Promise<string> {
  currentSource = ip;
  const pagePath = new URL(url).pathname;
  const forwarded = { 'x-forwarded-for': ip };
  const page = await (await fetch(`${base}${pagePath}`, { headers: forwarded })).text();
  const pageToken = page.split('data-token="')[1]?.split('"')[0] ?? '';
  const headers = { 'x-payment-link-token': pageToken, 'content-type': 'application/json', ...forwarded };
  const session = await fetch(`${base}${pagePath}/sessions`, { method: 'POST', headers, body: '{}' });
  if (session.status !== 201) throw new Error(`page session: ${session.status} ${await session.text()}`);
  const { id } = (await session.json()) as { id: string };
  const fields = await fetch(`${base}/checkout/sessions/${id}/fields`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', ...forwarded },
    body: JSON.stringify({ payment_method: card(number) }),
  });
  if (fields.status !== 204) throw new Error(`session fields: ${fields.status} ${await fields.text()}`);
  const paid = await fetch(`${base}${pagePath}/payments`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ checkout_session_id: id }),
  });
  if (paid.status !== 200) throw new Error(`page payment: ${paid.status} ${await paid.text()}`);
  const answer = (await paid.json()) as { outcome: string; transaction_id: string };
  const txn = await api('GET', `/transactions/${answer.transaction_id}`);
  return txn.error_code ?? txn.status;
}

const link = async (amount: number) =>
  (await api('POST', '/payment-links', { amount, currency: 'USD', country: 'US' })) as { url: string };

interface Row {
  path: string;
  attempts: number;
  reachedProvider: number;
  stopped: number;
  firstStoppedAt: number | null;
  legitimate: { paid: number; tried: number };
}

async function attack(pathName: string, attacker: string, prefix: string, attempt: (n: string) => Promise<string>) {
  const row: Row = {
    path: pathName,
    attempts: 0,
    reachedProvider: 0,
    stopped: 0,
    firstStoppedAt: null,
    legitimate: { paid: 0, tried: 0 },
  };
  const started = performance.now();
  for (const [i, number] of luhnCards(CARDS, prefix).entries()) {
    const code = await attempt(number);
    row.attempts += 1;
    if (code === 'flow_card_testing_suspected') {
      row.stopped += 1;
      row.firstStoppedAt ??= i + 1;
    }
    if (i % LEGIT_EVERY === 0) {
      row.legitimate.tried += 1;
      const ok =
        pathName === 'API'
          ? (await payByApi('4111111111111111', BUYER, 1000)) === 'authorization_succeeded'
          : (await payOnPage((await link(1000)).url, '4111111111111111', BUYER)) === 'authorization_succeeded';
      if (ok) row.legitimate.paid += 1;
    }
  }
  row.reachedProvider = reached.get(attacker) ?? 0;
  log(`${pathName}: ${row.attempts} attempts in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return row;
}

log(`${CARDS} cards per attack, against ${base}`);
const rows = [
  await attack('API', ATTACKER_API, '400012', (n) => payByApi(n, ATTACKER_API, PROBE_AMOUNT)),
  await (async () => {
    const page = await link(PROBE_AMOUNT);
    return attack('hosted page', ATTACKER_PAGE, '400013', (n) => payOnPage(page.url, n, ATTACKER_PAGE));
  })(),
];
const incidents = (await api('GET', '/monitoring/incidents')).items as Array<{ spec: { model: string } }>;

const threshold = config.cardTestingDistinctCards;
const lines = [
  `Card-testing attack: ${CARDS} distinct cards per path from one address, each declined by the sandbox processor (do_not_honor); guard ${config.cardTestingGuardEnabled ? 'on' : 'OFF'}, threshold ${threshold} distinct declined cards in ${config.cardTestingWindowMinutes} minutes, cool-down ${config.cardTestingBlockMinutes} minutes.`,
  '',
  '| Path | Attempts | Reached the provider | Stopped before any provider | First stopped attempt | Legitimate buyer (another address) |',
  '|---|---|---|---|---|---|',
  ...rows.map(
    (r) =>
      `| ${r.path} | ${r.attempts} | ${r.reachedProvider} | ${r.stopped} | ${r.firstStoppedAt ?? 'never'} | ${r.legitimate.paid} of ${r.legitimate.tried} paid |`,
  ),
  '',
  `Incidents raised: ${incidents.filter((i) => i.spec.model === 'card_testing').length} (one per attacking address).`,
  `Aim: each attack stopped within the threshold (at most ${threshold} attempts reach the provider) while the legitimate buyer keeps paying: ${
    rows.every((r) => r.reachedProvider <= threshold && r.legitimate.paid === r.legitimate.tried) ? 'met' : 'NOT met'
  }.`,
];
process.stdout.write(`${lines.join('\n')}\n`);

await app.close();
await runtime.close();
fs.rmSync(dataDir, { recursive: true, force: true });
