import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { card, createTransaction, merchantWithMockCard } from '../../../../test/helpers/transactions.ts';

/**
 * The sandbox's simulated pages read on a phone (issue 51, defect 4): a viewport, the hosted page's
 * style sheet under a CSP without inline style, a language, and buttons named for what they do.
 * (test/browser/payment-link-card-checks.browser.test.ts renders the 3DS challenge at 390 px.)
 */
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const pathOf = (url: string) => new URL(url).pathname;

function expectPhoneReady(res: { statusCode: number; headers: Record<string, unknown>; body: string }) {
  expect(res.statusCode).toBe(200);
  const csp = res.headers['content-security-policy'] as string;
  expect(csp).toContain("style-src 'self';");
  expect(csp).not.toContain('unsafe-inline');
  expect(csp).toContain("frame-ancestors 'none'");
  expect(res.body).toContain('<html lang="en">');
  expect(res.body).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
  expect(res.body).toContain('<link rel="stylesheet" href="/pay-assets/page.css">');
  expect(res.body).not.toMatch(/<style|style=|<script/);
}

describe('happy', () => {
  it('the 3DS challenge page', async () => {
    const m = (await merchantWithMockCard(t, { three_d_secure_enabled: true })).merchantAccountId;
    const txn = (
      await createTransaction(t, m, { payment_method: card('4000000000003220', { security_code: '123' }) })
    ).json();
    const page = await t.app.inject({ method: 'GET', url: pathOf(txn.payment_method.approval_url) });
    expectPhoneReady(page);
    expect(page.body).toContain('<button type="submit">Complete authentication</button>');
    expect(page.body).toContain('<button type="submit" class="alt">Fail authentication</button>');
    const done = await t.app.inject({
      method: 'POST',
      url: `${pathOf(txn.payment_method.approval_url)}/complete`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: '',
    });
    expectPhoneReady(done);
    expect(done.body).toContain('no challenge is waiting');
  });

  it('the redirect approval page', async () => {
    const m = (await merchantWithMockCard(t)).merchantAccountId;
    const bank = await t.request({
      method: 'POST',
      url: '/payment-services',
      merchantAccountId: m,
      payload: {
        display_name: 'Bank',
        payment_service_definition_id: 'mock-paybybank',
        fields: [{ key: 'merchant_id', value: 'pbb' }],
        accepted_currencies: ['EUR'],
        accepted_countries: ['NL'],
      },
    });
    expect(bank.statusCode, bank.body).toBe(201);
    const txn = (
      await t.request({
        method: 'POST',
        url: '/transactions',
        merchantAccountId: m,
        payload: {
          amount: 2500,
          currency: 'EUR',
          payment_method: {
            method: 'paybybank',
            country: 'NL',
            currency: 'EUR',
            redirect_url: 'https://shop.example/r',
          },
        },
      })
    ).json();
    const page = await t.app.inject({ method: 'GET', url: pathOf(txn.payment_method.approval_url) });
    expectPhoneReady(page);
    expect(page.body).toContain('<button type="submit">Approve</button>');
    expect(page.body).toContain('<button type="submit" class="alt">Decline</button>');
  });

  it.each([
    ['mock-sepa', 'sepa', 'EUR', 'DE', '<button type="submit">Approve the mandate</button>', 'name="iban"'],
    ['mock-pix', 'pix', 'BRL', 'BR', '<button type="submit">Pay with the sandbox bank app</button>', '<code>000201'],
  ])('the %s page', async (definition, method, currency, country, button, field) => {
    const m = (await merchantWithMockCard(t)).merchantAccountId;
    const service = await t.request({
      method: 'POST',
      url: '/payment-services',
      merchantAccountId: m,
      payload: {
        display_name: definition,
        payment_service_definition_id: definition,
        fields: [{ key: 'merchant_id', value: 'm' }],
        accepted_currencies: [currency],
        accepted_countries: [country],
      },
    });
    expect(service.statusCode, service.body).toBe(201);
    const txn = (
      await t.request({
        method: 'POST',
        url: '/transactions',
        merchantAccountId: m,
        payload: {
          amount: 2500,
          currency,
          intent: 'capture',
          payment_method: { method, country, currency, redirect_url: 'https://shop.example/r' },
          buyer: {
            billing_details: {
              first_name: 'Ana',
              email_address: 'ana@example.com',
              tax_id: { value: '530.333.155-50', kind: 'br.cpf' },
            },
          },
        },
      })
    ).json();
    const page = await t.app.inject({ method: 'GET', url: pathOf(txn.payment_method.approval_url) });
    expectPhoneReady(page);
    expect(page.body).toContain(button);
    expect(page.body).toContain(field);
  });
});
