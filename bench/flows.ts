/**
 * Flow rule scenarios of the benchmark (bench/run.ts), each in its own merchant account so the
 * others run without rules: a stored-card authorization with no rules, the same with 50 rules (49
 * that do not match, evaluated first, then the one that routes), and without rules again, back to
 * back so they compare; and failover, where the rule's first service is unreachable and every
 * transaction is authorized at the second.
 */

import { withWarmup } from './warmup.ts';

type Cannon = (options: Record<string, unknown>) => PromiseLike<any> & { stop(): void };
type Run = (
  scenario: string,
  fn: () => Promise<{ result: any; note?: string }>,
  warmup?: () => Promise<void>,
) => Promise<void>;

export interface FlowBenchContext {
  baseUrl: string;
  token: string;
  connections: number;
  seconds: number;
  /** Seconds of each row's own load sent before its measured run (0: none; BENCH_WARMUP). */
  warmup: number;
  autocannon: Cannon;
}

export const MERCHANT_HEADER = 'x-svc-merchant-account-id';

/** A request of the set-up as `merchant` (null: the default account); anything but `status` stops the run. */
export async function call(
  ctx: FlowBenchContext,
  merchant: string | null,
  method: string,
  url: string,
  body: unknown,
  status: number,
): Promise<any> {
  const res = await fetch(`${ctx.baseUrl}${url}`, {
    method,
    headers: {
      authorization: `Bearer ${ctx.token}`,
      'content-type': 'application/json',
      ...(merchant ? { [MERCHANT_HEADER]: merchant } : {}),
    },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  if (res.status !== status) throw new Error(`${method} ${url} answered ${res.status}: ${JSON.stringify(json)}`);
  return json;
}

/** A merchant account with mock-card services (fields per service) and a stored card. */
export async function account(
  ctx: FlowBenchContext,
  id: string,
  services: Array<Array<{ key: string; value: string }>>,
) {
  await call(ctx, null, 'POST', '/merchant-accounts', { id, display_name: id }, 201);
  const ids: string[] = [];
  for (const [i, fields] of services.entries()) {
    const service = await call(
      ctx,
      id,
      'POST',
      '/payment-services',
      {
        display_name: `Bench ${i}`,
        payment_service_definition_id: 'mock-card',
        fields: [{ key: 'merchant_id', value: `bench-${i}` }, ...fields],
        accepted_currencies: ['USD'],
        accepted_countries: ['US'],
      },
      201,
    );
    ids.push(service.id);
  }
  const card = await call(
    ctx,
    id,
    'POST',
    '/payment-methods',
    { method: 'card', number: '4111111111111111', expiration_date: '12/40' },
    201,
  );
  return { services: ids, cardId: card.id as string };
}

/** 49 rules that do not match a USD stored-card authorization (each fails on its last condition), then one that does. */
function fiftyRules(serviceId: string) {
  const rules = Array.from({ length: 49 }, (_, i) => ({
    description: `bench rule ${i}`,
    conditions: [
      { field: 'currency', operator: 'one_of', value: ['USD', 'EUR'] },
      { field: 'payment_source', operator: 'not_one_of', value: ['moto'] },
      { field: 'metadata', key: 'segment', operator: 'equals', value: `segment-${i}` },
    ],
    outcome: { payment_service_ids: [serviceId] },
  }));
  return [
    ...rules,
    {
      description: 'bench catch-all',
      conditions: [{ field: 'amount', operator: 'range', value: { currency: 'USD', min: 1 } }],
      outcome: { payment_service_ids: [serviceId] },
    },
  ];
}

export async function flowScenarios(ctx: FlowBenchContext, run: Run): Promise<void> {
  const suffix = Date.now().toString(36);
  const plain = await account(ctx, `bench-plain-${suffix}`, [[]]);
  const ruled = await account(ctx, `bench-rules-${suffix}`, [[]]);
  for (const rule of fiftyRules(ruled.services[0]!))
    await call(
      ctx,
      `bench-rules-${suffix}`,
      'POST',
      '/flows/card-transaction/actions/route-transaction/rules',
      rule,
      201,
    );
  const failing = await account(ctx, `bench-failover-${suffix}`, [
    [{ key: 'simulate_outcome', value: 'unavailable' }],
    [],
  ]);
  await call(
    ctx,
    `bench-failover-${suffix}`,
    'POST',
    '/flows/card-transaction/actions/route-transaction/rules',
    { conditions: [], outcome: { payment_service_ids: failing.services } },
    201,
  );

  const authorize = (merchant: string, cardId: string, seconds: number) =>
    ctx.autocannon({
      url: `${ctx.baseUrl}/transactions`,
      method: 'POST',
      connections: ctx.connections,
      duration: seconds,
      headers: {
        authorization: `Bearer ${ctx.token}`,
        'content-type': 'application/json',
        [MERCHANT_HEADER]: merchant,
      },
      body: JSON.stringify({ amount: 1000, currency: 'USD', payment_method: { method: 'id', id: cardId } }),
    });
  const row = (merchant: string, cardId: string) =>
    withWarmup(ctx.seconds, ctx.warmup, (duration) => authorize(merchant, cardId, duration));
  await run(
    'POST /transactions, stored card, authorize, no flow rules (own account)',
    ...row(`bench-plain-${suffix}`, plain.cardId),
  );
  await run(
    'POST /transactions, stored card, authorize, 50 flow rules (route-transaction, the 50th matches)',
    ...row(`bench-rules-${suffix}`, ruled.cardId),
  );
  // Once more: the spread between the two no-rule rows is the noise the 50-rule row is read against.
  await run(
    'POST /transactions, stored card, authorize, no flow rules again (own account)',
    ...row(`bench-plain-${suffix}`, plain.cardId),
  );
  await run(
    'POST /transactions, stored card, authorize, failover (first service unreachable, authorized at the second)',
    ...row(`bench-failover-${suffix}`, failing.cardId),
  );
}
