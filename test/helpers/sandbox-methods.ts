import { expect } from 'vitest';
import type { TestApp } from './build-test-app.ts';
import { createMerchantAccount } from './factories.ts';
import { drainUntil, type Receiver } from './webhook-receiver.ts';

/**
 * The sandbox's simulated methods through HTTP (docs/sandbox.md): a merchant account with a
 * payment service of a `mock-*` definition and a webhook subscription to `receiver`, the buyer on
 * the sandbox approval page, and the queue run until the simulated provider's events landed.
 */
export interface SandboxMerchant {
  m: string;
  serviceId: string;
  call(method: 'GET' | 'POST', url: string, payload?: object): ReturnType<TestApp['request']>;
  /** The webhooks this merchant account received, by kind and resource id. */
  webhooks(): Array<{ kind: string; id: string; status: unknown }>;
}

export async function sandboxMerchant(
  t: TestApp,
  receiver: Receiver,
  definition: string,
  currencies: string[],
  countries: string[],
): Promise<SandboxMerchant> {
  const m = await createMerchantAccount(t.deps);
  const call = (method: 'GET' | 'POST', url: string, payload?: object) =>
    t.request({ method, url, merchantAccountId: m, ...(payload ? { payload } : {}) });
  const service = await call('POST', '/payment-services', {
    display_name: `${definition} (sandbox)`,
    payment_service_definition_id: definition,
    fields: [{ key: 'merchant_id', value: `${definition}-sandbox` }],
    accepted_currencies: currencies,
    accepted_countries: countries,
  });
  expect(service.statusCode, service.body).toBe(201);
  const sub = await call('POST', '/webhook-subscriptions', { url: receiver.url });
  expect(sub.statusCode, sub.body).toBe(201);
  const webhooks = () =>
    receiver.received
      .filter((r) => r.json.merchant_account_id === m)
      .map((r) => ({
        kind: r.json.kind as string,
        id: (r.json.resource as { id: string }).id,
        status: (r.json.payload as { status?: unknown }).status,
      }));
  return { m, serviceId: service.json().id, call, webhooks };
}

/** The buyer's choice on the sandbox approval page (`form`: the page's fields, e.g. a SEPA IBAN). */
export function onApprovalPage(
  t: TestApp,
  txn: { payment_method: { approval_url: string } },
  choice: 'approve' | 'decline',
  form = '',
) {
  return t.app.inject({
    method: 'POST',
    url: `${new URL(txn.payment_method.approval_url).pathname}/${choice}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: form,
  });
}

/** The transaction once `done` holds for it, running the queue meanwhile (the simulated provider's events are jobs). */
export async function transactionWhen(
  t: TestApp,
  merchant: SandboxMerchant,
  id: string,
  done: (txn: Record<string, unknown>) => boolean | Promise<boolean>,
): Promise<Record<string, unknown>> {
  let txn: Record<string, unknown> = {};
  await drainUntil(t.deps, async () => {
    txn = (await merchant.call('GET', `/transactions/${id}`)).json();
    return await done(txn);
  });
  return txn;
}

/** The names (and a detail) of a transaction's history events. */
export async function eventsOf(merchant: SandboxMerchant, id: string) {
  const res = await merchant.call('GET', `/transactions/${id}/events`);
  expect(res.statusCode, res.body).toBe(200);
  return (res.json().items as Array<{ name: string; context: Record<string, unknown> }>).map((e) => ({
    name: e.name,
    kind: e.context?.kind ?? null,
  }));
}
