import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createRuntime } from '../../src/deps.ts';
import { reconcileDuePayouts } from '../../src/modules/payouts/reconcile-payouts.service.ts';
import { reconcileDueAttempts } from '../../src/modules/transactions/reconcile/reconcile.service.ts';
import { startServer, type RunningServer } from '../helpers/spawn-server.ts';
import { drainUntil, startReceiver, type Receiver } from '../helpers/webhook-receiver.ts';
import { runClient, type Answered, type TrafficCounts } from './support/crash-traffic.ts';
import { verifyAnswered, type Get } from './support/crash-verify.ts';
import { loadProfile, report } from './support/profile.ts';
import {
  bootstrapToken,
  client,
  freePort,
  openServerDatabase,
  seededRandom,
  type ServerDatabase,
} from './support/real-server.ts';

/**
 * Real server processes under concurrent authorize / capture / refund / payout traffic, SIGKILLed
 * at random moments and restarted on the same database (PGlite's data directory, or a PostgreSQL
 * schema when TEST_DATABASE_URL is set). Then every operation that got a 2xx answer is checked.
 */
const profile = loadProfile();
const postgresUrl = process.env.TEST_DATABASE_URL;
const cleanup: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
});

const DAY = 24 * 3600 * 1000;

async function setUpMerchant(baseUrl: () => string, token: string, receiver: Receiver) {
  const call = client(baseUrl, token);
  const merchantAccountId = `crash-${Date.now().toString(36)}`;
  expect((await call('POST', '/merchant-accounts', { id: merchantAccountId, display_name: 'Crash test' })).status).toBe(
    201,
  );
  const asMerchant = client(baseUrl, token, merchantAccountId);
  const service = await asMerchant('POST', '/payment-services', {
    display_name: 'Mock card',
    payment_service_definition_id: 'mock-card',
    fields: [{ key: 'merchant_id', value: 'm-1' }],
    accepted_currencies: ['USD'],
    accepted_countries: ['US'],
  });
  expect(service.status, JSON.stringify(service.json)).toBe(201);
  expect((await asMerchant('POST', '/webhook-subscriptions', { url: receiver.url })).status).toBe(201);
  return { merchantAccountId, paymentServiceId: service.json.id as string };
}

/** After the last restart: reconcile what the kills left open (as the schedule would, hours later), deliver, and check over HTTP. */
async function settleAndVerify(
  db: ServerDatabase,
  token: string,
  merchantAccountId: string,
  answered: Answered[],
  receiver: Receiver,
) {
  const runtime = await createRuntime(
    loadConfig({ ...db.env, LOG_LEVEL: 'silent', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' }),
  );
  cleanup.push(() => runtime.close());
  const later = new Date(Date.now() + 2 * 3600 * 1000);
  const reconciled =
    (await reconcileDueAttempts(runtime.deps, later)) + (await reconcileDuePayouts(runtime.deps, later));
  const leftOpen =
    (await reconcileDueAttempts(runtime.deps, new Date(later.getTime() + 3 * DAY))) +
    (await reconcileDuePayouts(runtime.deps, new Date(later.getTime() + 3 * DAY)));
  // What waiting out the killed processes' leases would do (jobs 5 minutes, webhook attempts 1 minute).
  await sql`UPDATE jobs SET locked_until = now() - interval '1 second' WHERE status = 'running'`.execute(
    runtime.deps.db,
  );
  await sql`UPDATE webhook_deliveries SET next_attempt_at = now() WHERE status = 'pending' AND next_attempt_at > now()`.execute(
    runtime.deps.db,
  );
  const app = await buildApp(runtime.deps);
  cleanup.push(() => app.close());
  const get: Get = async (url) => {
    const res = await app.inject({
      method: 'GET',
      url,
      headers: { authorization: `Bearer ${token}`, 'x-svc-merchant-account-id': merchantAccountId },
    });
    return { status: res.statusCode, json: res.json() };
  };
  const delivered = () => receiver.received.map((r) => ({ kind: r.json.kind, resourceId: r.json.resource.id }));
  let verdict = await verifyAnswered(get, answered, delivered());
  // Webhooks the dead processes left pending go out now; the order rule paces them about a second apart per resource.
  await drainUntil(
    runtime.deps,
    async () => (verdict = await verifyAnswered(get, answered, delivered())).mismatched.length === 0,
    60_000,
  );
  return { verdict, reconciled, leftOpen };
}

describe('security', () => {
  it(`SIGKILL under load on ${postgresUrl ? 'PostgreSQL' : 'PGlite'}: every answered operation survives with its history, audit entry and webhooks`, async () => {
    const db = await openServerDatabase(postgresUrl);
    cleanup.push(() => db.dispose());
    const receiver = await startReceiver();
    cleanup.push(() => receiver.close());
    const port = await freePort();
    const env = {
      ...db.env,
      PORT: String(port),
      LOG_LEVEL: 'warn',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      JOB_POLL_MS: '200',
      SETTLEMENT_DELAY_SECONDS: '86400',
    };
    let server: RunningServer = await startServer(env);
    cleanup.push(() => server.stop('SIGKILL'));
    const baseUrl = () => server.baseUrl;
    const token = await bootstrapToken(db.env.DATA_DIR!);
    const merchant = await setUpMerchant(baseUrl, token, receiver);

    const random = seededRandom(profile.fuzzSeed);
    const answered: Answered[] = [];
    const counts: TrafficCounts = { sent: 0, answered: 0, unanswered: 0, refused: {}, serverErrors: [] };
    let stop = false;
    const clients = Array.from({ length: profile.crashClients }, () =>
      runClient({ baseUrl, token, ...merchant }, answered, counts, () => stop),
    );
    const restarts: number[] = [];
    for (let kill = 0; kill < profile.killsPerDatabase; kill++) {
      // Under traffic: a few answers from this process first, then a random moment.
      const before = counts.answered;
      while (counts.answered < before + 2) await new Promise((resolve) => setTimeout(resolve, 50));
      await new Promise((resolve) => setTimeout(resolve, random() * 1_500));
      server.process.kill('SIGKILL');
      await new Promise((resolve) => server.process.once('exit', resolve));
      const started = Date.now();
      server = await startServer(env);
      restarts.push(Date.now() - started);
    }
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    stop = true;
    await Promise.all(clients);
    expect(await server.stop('SIGTERM')).toBe(0);

    const { verdict, reconciled, leftOpen } = await settleAndVerify(
      db,
      token,
      merchant.merchantAccountId,
      answered,
      receiver,
    );
    report(`crash safety (${db.kind})`, {
      profile: profile.name,
      kills: profile.killsPerDatabase,
      sent: counts.sent,
      answered: verdict.answered,
      missing: verdict.missing.length,
      mismatched: verdict.mismatched.length,
      refused_4xx: JSON.stringify(counts.refused),
      server_errors: counts.serverErrors.length,
      reconciled_after_restart: reconciled,
      left_open: leftOpen,
      webhooks_received: receiver.received.length,
      restart_ms_max: Math.max(...restarts),
    });
    expect(verdict.missing).toEqual([]);
    expect(verdict.mismatched).toEqual([]);
    expect(verdict.answered).toBeGreaterThanOrEqual(profile.killsPerDatabase * 2);
    expect(counts.serverErrors).toEqual([]);
    expect(leftOpen).toBe(0);
  });
});
