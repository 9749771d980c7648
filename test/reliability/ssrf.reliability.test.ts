import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { withTransaction } from '../../src/db/transaction.ts';
import { emitEvent } from '../../src/modules/events/events.service.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createMerchantAccount } from '../helpers/factories.ts';
import { drainUntil } from '../helpers/webhook-receiver.ts';
import { startListener, type Listener } from './support/listener.ts';
import { report } from './support/profile.ts';
import { TARGET_HOSTS } from './support/ssrf-targets.ts';

// The resolver the server uses (node:dns/promises' lookup), with test names answered from a table
// and every other name refused: nothing leaves the machine, and no /etc/hosts entry is needed.
vi.mock('node:dns/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:dns/promises')>();
  const { hostsResolvingTo } = await import('./support/ssrf-targets.ts');
  const lookup = async (host: string, options?: { all?: boolean }) => {
    const addresses = hostsResolvingTo()[host.toLowerCase().replace(/\.$/, '')];
    if (!addresses) return real.lookup(host, options as never);
    const all = addresses.map((address) => ({ address, family: isIP(address) }));
    return options?.all ? all : all[0];
  };
  return { ...real, lookup, default: { ...real, lookup } };
});

/**
 * A place where the API accepts a URL, and how to offer it one. `answer` is the HTTP answer to the
 * offer; `delivered` (optional) makes the server act on a URL it stored and returns the outcome.
 * Add an entry when a new resource takes a URL (payment links, wallets, report storage).
 */
interface UrlInput {
  name: string;
  offer(t: TestApp, m: string, url: string): Promise<{ status: number; body: string; stored?: string }>;
  act?(t: TestApp, m: string, stored: string): Promise<string>;
}

const URL_INPUTS: UrlInput[] = [
  {
    name: 'webhook subscription url',
    async offer(t, m, url) {
      const res = await t.request({
        method: 'POST',
        url: '/webhook-subscriptions',
        merchantAccountId: m,
        payload: { url },
      });
      return { status: res.statusCode, body: res.body, ...(res.statusCode === 201 ? { stored: res.json().id } : {}) };
    },
    // A stored URL (a host name passes the form check) is judged again, resolved, at each delivery.
    async act(t, m, subscriptionId) {
      await withTransaction(t.deps.db, (tx) =>
        emitEvent(tx, t.deps, {
          merchantAccountId: m,
          kind: 'buyer.created',
          resourceType: 'buyer',
          resourceId: subscriptionId,
          payload: { id: subscriptionId },
        }),
      );
      const deliveries = async () =>
        (
          await t.request({
            method: 'GET',
            url: `/webhook-subscriptions/${subscriptionId}/deliveries`,
            merchantAccountId: m,
          })
        ).json().items as Array<{ last_error: string | null; attempts?: number }>;
      await drainUntil(t.deps, async () => (await deliveries()).every((d) => d.last_error !== null), 15_000);
      return (await deliveries()).map((d) => d.last_error ?? '(not attempted)').join('; ');
    },
  },
  {
    name: 'vault forwarding target (x-vault-forward-url)',
    async offer(t, m, url) {
      const card = await t.request({
        method: 'POST',
        url: '/payment-methods',
        merchantAccountId: m,
        payload: { method: 'card', number: '4111111111111111', expiration_date: '12/40' },
      });
      const res = await t.request({
        method: 'POST',
        url: '/vault-forward',
        merchantAccountId: m,
        headers: {
          'x-vault-forward-url': url,
          'x-vault-forward-http-method': 'POST',
          'x-vault-forward-payment-methods': card.json().id,
        },
        payload: { pan: '{{CARD_NUMBER_1}}' },
      });
      return { status: res.statusCode, body: res.body };
    },
  },
];

let production: TestApp;
let listener: Listener;
beforeAll(async () => {
  listener = await startListener();
  production = await buildTestApp({
    ENVIRONMENT: 'production',
    VAULT_MASTER_KEY: randomBytes(32).toString('base64'),
    VAULT_FORWARD_ALLOWED_HOSTS: '*.ssrf.test,localhost,*.localhost',
  });
});
afterAll(async () => {
  await production?.close();
  await listener?.close();
});

describe('security', () => {
  it('refuses every forbidden target in every notation at every place that takes a URL: the listener receives nothing', async () => {
    const m = await createMerchantAccount(production.deps);
    const accepted: string[] = [];
    let refusedAtOffer = 0;
    let refusedAtDelivery = 0;
    for (const input of URL_INPUTS) {
      for (const { kind, host } of TARGET_HOSTS) {
        const url = `https://${host}:${listener.port}/hook`;
        const answer = await input.offer(production, m, url);
        if (answer.status >= 400 && answer.status < 500) {
          refusedAtOffer += 1;
          continue;
        }
        if (answer.stored === undefined || !input.act) {
          accepted.push(`${input.name} accepted ${kind} ${url}: ${answer.status} ${answer.body.slice(0, 200)}`);
          continue;
        }
        const outcome = await input.act(production, m, answer.stored);
        if (/^refused: /.test(outcome)) refusedAtDelivery += 1;
        else accepted.push(`${input.name} delivered to ${kind} ${url}: ${outcome}`);
      }
    }
    report('SSRF', {
      places: URL_INPUTS.length,
      notations: TARGET_HOSTS.length,
      refused_at_offer: refusedAtOffer,
      refused_at_delivery: refusedAtDelivery,
      accepted: accepted.length,
      listener_connections: listener.connections,
    });
    expect(accepted).toEqual([]);
    expect(listener.connections).toBe(0);
  });
});

describe('happy', () => {
  // The control: the same listener does receive when the sandbox allows private targets, so the
  // zero above is the server refusing, not the listener being unreachable.
  it('the listener is reachable when private targets are allowed, and no redirect is followed toward it', async () => {
    const sandbox = await buildTestApp({
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      VAULT_FORWARD_ALLOW_PRIVATE_URLS: 'true',
      VAULT_FORWARD_TIMEOUT_SECONDS: '5',
    });
    // The first hop answers with a redirect to a second listener, which must see no connection.
    const redirectTarget = await startListener();
    const hop = await startListener((res) =>
      res.writeHead(307, { location: `http://127.0.0.1:${redirectTarget.port}/redirected` }).end(),
    );
    try {
      const m = await createMerchantAccount(sandbox.deps);
      const before = listener.connections;
      for (const input of URL_INPUTS) {
        const answer = await input.offer(sandbox, m, `http://127.0.0.1:${listener.port}/direct`);
        if (answer.stored !== undefined && input.act) await input.act(sandbox, m, answer.stored);
      }
      expect(listener.connections - before).toBe(URL_INPUTS.length);

      const other = await createMerchantAccount(sandbox.deps);
      for (const input of URL_INPUTS) {
        const answer = await input.offer(sandbox, other, `http://127.0.0.1:${hop.port}/first-hop`);
        if (answer.stored !== undefined && input.act) await input.act(sandbox, other, answer.stored);
      }
      expect(hop.requests).toHaveLength(URL_INPUTS.length);
      expect(redirectTarget.connections).toBe(0);
      report('SSRF redirects', {
        first_hop_requests: hop.requests.length,
        redirect_target_connections: redirectTarget.connections,
      });
    } finally {
      await redirectTarget.close();
      await hop.close();
      await sandbox.close();
    }
  });
});
