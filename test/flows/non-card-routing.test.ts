import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchantAccount } from '../helpers/factories.ts';
import {
  createNonCardService,
  METHODS,
  nonCardPayment,
  startNonCardWorld,
  type NonCardMethod,
  type NonCardWorld,
} from '../helpers/non-card.ts';

/**
 * Issue 53, "each method travels the whole engine", for the non-card methods with real connectors
 * (paypal, ideal, pix, gocardless), against their providers' local fakes: payment options offer a
 * method only where one of its services takes the currency and the country; flow rules route a
 * method to a service, split it by weight between two services, and route it by country; the dry
 * run shows what a transaction then does, and the transaction's decision trace what it did.
 */
let w: NonCardWorld;
beforeAll(async () => {
  w = await startNonCardWorld();
});
afterAll(async () => w.close());

const RULES = (flow: string, action: string) => `/flows/${flow}/actions/${action}/rules`;

async function call(m: string, method: 'GET' | 'POST', url: string, payload?: object) {
  return w.t.request({ method, url, merchantAccountId: m, ...(payload ? { payload } : {}) });
}

async function rule(m: string, flow: string, action: string, payload: object) {
  const res = await call(m, 'POST', RULES(flow, action), payload);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as string;
}

const optionsFor = async (m: string, currency: string, country: string) =>
  (await call(m, 'POST', '/payment-options', { amount: 1000, currency, country })).json().items as Array<{
    method: string;
    mode: string;
  }>;

async function pay(m: string, method: NonCardMethod, body: Record<string, unknown> = {}) {
  const res = await call(m, 'POST', '/transactions', nonCardPayment(method, body));
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

const actionsOf = async (m: string, id: string) =>
  (await call(m, 'GET', `/transactions/${id}/actions`)).json().items as Array<{
    id: string;
    flow: string;
    rule_id: string;
    outcome: Record<string, any>;
  }>;

describe('payment options', () => {
  it('offers each method only for the currency and country one of its services takes', async () => {
    const m = await createMerchantAccount(w.t.deps);
    for (const method of Object.keys(METHODS) as NonCardMethod[]) await createNonCardService(w.t, m, method);
    const expected: Array<[string, string, string[]]> = [
      ['USD', 'US', ['paypal']],
      ['EUR', 'NL', ['ideal']],
      ['BRL', 'BR', ['pix']],
      ['GBP', 'GB', ['gocardless']],
      // The right currency in the wrong country, and the reverse: nothing.
      ['USD', 'NL', []],
      ['EUR', 'US', []],
      ['EUR', 'DE', []],
      ['USD', 'BR', []],
      ['BRL', 'US', []],
      ['GBP', 'US', []],
      ['USD', 'GB', []],
    ];
    for (const [currency, country, methods] of expected) {
      const items = await optionsFor(m, currency, country);
      expect(
        items.map((o) => o.method),
        `${currency} ${country}`,
      ).toEqual(methods);
      for (const item of items) expect(item).toMatchObject({ mode: 'redirect' });
    }
  });

  it('offers a method again once a second service takes the currency and country, and a checkout rule picks and orders them', async () => {
    const m = await createMerchantAccount(w.t.deps);
    await createNonCardService(w.t, m, 'ideal');
    expect((await optionsFor(m, 'EUR', 'NL')).map((o) => o.method)).toEqual(['ideal']);
    await createNonCardService(w.t, m, 'paypal', {
      display_name: 'PayPal EU',
      accepted_currencies: ['EUR'],
      accepted_countries: ['NL', 'DE'],
    });
    expect((await optionsFor(m, 'EUR', 'NL')).map((o) => o.method)).toEqual(['ideal', 'paypal']);
    expect((await optionsFor(m, 'EUR', 'DE')).map((o) => o.method)).toEqual(['paypal']);
    await rule(m, 'checkout', 'select-payment-options', {
      conditions: [{ field: 'country', operator: 'equals', value: 'NL' }],
      outcome: { payment_options: ['paypal', 'ideal', 'pix'] },
    });
    // The rule's order; pix is listed but no service takes EUR in NL: not offered.
    expect((await optionsFor(m, 'EUR', 'NL')).map((o) => o.method)).toEqual(['paypal', 'ideal']);
    expect((await optionsFor(m, 'EUR', 'DE')).map((o) => o.method)).toEqual(['paypal']);
  });

  it('refuses a service of a method outside what its provider serves (iDEAL in USD or in the US)', async () => {
    const m = await createMerchantAccount(w.t.deps);
    const res = await call(m, 'POST', '/payment-services', {
      display_name: 'iDEAL',
      payment_service_definition_id: 'adyen-ideal',
      fields: Object.entries(METHODS.ideal.fields).map(([key, value]) => ({ key, value })),
      accepted_currencies: ['EUR', 'USD'],
      accepted_countries: ['NL', 'US'],
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      code: 'bad_request',
      details: [
        expect.objectContaining({ pointer: '/accepted_currencies/1', message: 'USD is not supported by adyen-ideal' }),
        expect.objectContaining({ pointer: '/accepted_countries/1', message: 'US is not supported by adyen-ideal' }),
      ],
    });
  });
});

describe('route-transaction rules', () => {
  it('routes paypal to the service a rule names, and the trace and the dry run say so', async () => {
    const m = await createMerchantAccount(w.t.deps);
    const first = await createNonCardService(w.t, m, 'paypal', { display_name: 'PayPal A' });
    const second = await createNonCardService(w.t, m, 'paypal', { display_name: 'PayPal B' });
    const unruled = await pay(m, 'paypal');
    expect(unruled.payment_service.id).toBe(first.id);
    const ruleId = await rule(m, 'redirect-transaction', 'route-transaction', {
      conditions: [{ field: 'payment_method', operator: 'equals', value: 'paypal' }],
      outcome: { payment_service_ids: [second.id, first.id] },
    });
    const txn = await pay(m, 'paypal');
    expect(txn).toMatchObject({ status: 'buyer_approval_pending', payment_service: { id: second.id } });
    const [route] = await actionsOf(m, txn.id);
    expect(route).toMatchObject({
      id: 'route-transaction',
      flow: 'redirect-transaction',
      rule_id: ruleId,
      outcome: { rule: 'flow-rule', selected: second.id, eligible: [second.id, first.id] },
    });
    const dry = await call(m, 'POST', '/flows/redirect-transaction/dry-run', {
      amount: 1000,
      currency: 'USD',
      country: 'US',
      payment_method: { method: 'paypal' },
    });
    expect(dry.statusCode, dry.body).toBe(200);
    const decision = dry.json().decisions.find((d: { action: string }) => d.action === 'route-transaction');
    expect(decision).toMatchObject({
      matched_rule_id: ruleId,
      payment_services: [
        { payment_service_id: second.id, eligible: true, skipped_because: null },
        { payment_service_id: first.id, eligible: true, skipped_because: null },
      ],
    });
  });

  it('splits paypal between two services by weight, keeps a retry of the same order on its side, and the dry run agrees', async () => {
    const m = await createMerchantAccount(w.t.deps);
    const a = await createNonCardService(w.t, m, 'paypal', { display_name: 'PayPal A' });
    const b = await createNonCardService(w.t, m, 'paypal', { display_name: 'PayPal B' });
    const ruleId = await rule(m, 'redirect-transaction', 'route-transaction', {
      conditions: [{ field: 'payment_method', operator: 'equals', value: 'paypal' }],
      outcome: { payment_service_ids: [a.id, b.id], weights: [50, 50] },
    });
    const chosen: Record<string, number> = { [a.id]: 0, [b.id]: 0 };
    for (let i = 0; i < 24; i++) {
      const ref = `order-${i}`;
      const txn = await pay(m, 'paypal', { external_identifier: ref });
      chosen[txn.payment_service.id] = (chosen[txn.payment_service.id] ?? 0) + 1;
      const [route] = await actionsOf(m, txn.id);
      expect(route).toMatchObject({
        rule_id: ruleId,
        outcome: { weights: [50, 50], selected: txn.payment_service.id },
      });
      if (i < 4) {
        const again = await pay(m, 'paypal', { external_identifier: ref });
        expect(again.payment_service.id).toBe(txn.payment_service.id);
        const dry = await call(m, 'POST', '/flows/redirect-transaction/dry-run', {
          amount: 1000,
          currency: 'USD',
          country: 'US',
          payment_method: { method: 'paypal' },
          external_identifier: ref,
        });
        const decision = dry.json().decisions.find((d: { action: string }) => d.action === 'route-transaction');
        expect(decision.payment_services[0].payment_service_id).toBe(txn.payment_service.id);
      }
    }
    // Both sides of a 50/50 split are used (24 draws all on one side: about 1 in 8 million).
    expect(chosen[a.id]).toBeGreaterThan(0);
    expect(chosen[b.id]).toBeGreaterThan(0);
  });

  it('routes by country and by method: ideal and pix each to their rule, and a rule whose services cannot take the method is a 400', async () => {
    const m = await createMerchantAccount(w.t.deps);
    const paypalEu = await createNonCardService(w.t, m, 'paypal', {
      display_name: 'PayPal EU',
      accepted_currencies: ['EUR'],
      accepted_countries: ['NL', 'DE'],
    });
    const idealA = await createNonCardService(w.t, m, 'ideal', { display_name: 'iDEAL A' });
    const idealB = await createNonCardService(w.t, m, 'ideal', { display_name: 'iDEAL B' });
    const pix = await createNonCardService(w.t, m, 'pix');
    const byCountry = await rule(m, 'redirect-transaction', 'route-transaction', {
      conditions: [
        { field: 'country', operator: 'equals', value: 'NL' },
        { field: 'payment_method', operator: 'equals', value: 'ideal' },
      ],
      outcome: { payment_service_ids: [idealB.id, idealA.id] },
    });
    const pixRule = await rule(m, 'redirect-transaction', 'route-transaction', {
      conditions: [{ field: 'payment_method', operator: 'one_of', value: ['pix'] }],
      outcome: { payment_service_ids: [pix.id] },
    });
    const ideal = await pay(m, 'ideal');
    expect(ideal).toMatchObject({ status: 'buyer_approval_pending', payment_service: { id: idealB.id } });
    expect((await actionsOf(m, ideal.id))[0]).toMatchObject({ rule_id: byCountry, outcome: { selected: idealB.id } });
    const brl = await pay(m, 'pix');
    expect(brl).toMatchObject({ status: 'buyer_approval_pending', payment_service: { id: pix.id } });
    expect((await actionsOf(m, brl.id))[0]).toMatchObject({ rule_id: pixRule, outcome: { selected: pix.id } });
    // PayPal in EUR matches no rule: the first eligible service by position.
    const pp = await pay(m, 'paypal', { currency: 'EUR', country: 'DE' });
    expect(pp.payment_service.id).toBe(paypalEu.id);
    expect((await actionsOf(m, pp.id))[0]).toMatchObject({ rule_id: 'first-eligible-by-position' });

    // A rule sending paypal to iDEAL services: none can take it, refused naming the rule.
    const wrong = await rule(m, 'redirect-transaction', 'route-transaction', {
      conditions: [{ field: 'payment_method', operator: 'equals', value: 'paypal' }],
      outcome: { payment_service_ids: [idealA.id] },
    });
    const refused = await call(
      m,
      'POST',
      '/transactions',
      nonCardPayment('paypal', { currency: 'EUR', country: 'NL' }),
    );
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ code: 'bad_request' });
    expect(refused.json().message).toContain(`The routing rule ${wrong} matched`);
    expect(refused.json().message).toContain(`${idealA.id}: method not supported`);
    const dry = await call(m, 'POST', '/flows/redirect-transaction/dry-run', {
      amount: 1000,
      currency: 'EUR',
      country: 'NL',
      payment_method: { method: 'paypal' },
    });
    const decision = dry.json().decisions.find((d: { action: string }) => d.action === 'route-transaction');
    expect(decision).toMatchObject({
      matched_rule_id: wrong,
      payment_services: [{ payment_service_id: idealA.id, eligible: false, skipped_because: 'method_not_supported' }],
    });
  });

  it('declines early by a redirect rule before any provider is asked', async () => {
    const m = await createMerchantAccount(w.t.deps);
    await createNonCardService(w.t, m, 'gocardless');
    const ruleId = await rule(m, 'redirect-transaction', 'decline-early', {
      conditions: [
        { field: 'payment_method', operator: 'equals', value: 'gocardless' },
        { field: 'amount', operator: 'range', value: { currency: 'GBP', min: 50_000 } },
      ],
      outcome: { reason: 'Direct debit above 500 GBP needs a review' },
    });
    const before = w.gocardless.requests.length;
    const txn = await pay(m, 'gocardless', { amount: 60_000 });
    expect(txn).toMatchObject({ status: 'authorization_declined', error_code: 'flow_decline' });
    expect(w.gocardless.requests.length).toBe(before);
    expect((await actionsOf(m, txn.id))[0]).toMatchObject({ id: 'decline-early', rule_id: ruleId });
    const small = await pay(m, 'gocardless');
    expect(small.status).toBe('buyer_approval_pending');
  });
});
