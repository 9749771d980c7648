import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserHarness, type BrowserHarness } from '../helpers/browser.ts';

/**
 * The hosted payment page in Debian's chromium against `svc serve` (a real listening server on
 * PGlite): a buyer pays links with the sandbox test cards, and the outcome is checked through the
 * API. Each state is saved as a screenshot in test/browser/screenshots/.
 */

let h: BrowserHarness;
const api = (method: string, url: string, body?: unknown) => h.api(method, url, body);
const openPage = (width?: number) => h.openPage(width);
const shot = (page: Page, name: string) => h.shot(page, name);

async function createLink(extra: Record<string, unknown> = {}) {
  const res = await api('POST', '/payment-links', {
    amount: 1250,
    currency: 'USD',
    country: 'US',
    merchant_name: "Ada's Tea Shop",
    merchant_color: '#0B5D3B',
    merchant_message: 'Thank you for your order',
    merchant_terms_and_conditions_url: `${h.base}/healthz`,
    return_url: `${h.base}/healthz?shop=1`,
    cart_items: [
      { name: 'Green tea', quantity: 2, unit_amount: 500 },
      { name: 'Cup', quantity: 1, unit_amount: 250 },
    ],
    ...extra,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; url: string };
}

async function fillCard(page: Page, number: string) {
  await page.getByLabel('Card number').fill(number);
  await page.getByLabel('Expiry date (MM/YY)').fill('12/40');
  await page.getByLabel('Security code').fill('123');
  await page.getByLabel('Name on card').fill('Ada Lovelace');
}

beforeAll(async () => {
  h = await startBrowserHarness();
  const service = await api('POST', '/payment-services', {
    display_name: 'Mock card',
    payment_service_definition_id: 'mock-card',
    fields: [{ key: 'merchant_id', value: 'm-1' }],
    accepted_currencies: ['USD'],
    accepted_countries: ['US'],
    three_d_secure_enabled: true,
  });
  expect(service.status, JSON.stringify(service.body)).toBe(201);
  const bank = await api('POST', '/payment-services', {
    display_name: 'Bank',
    payment_service_definition_id: 'mock-paybybank',
    fields: [{ key: 'merchant_id', value: 'pbb' }],
    accepted_currencies: ['EUR'],
    accepted_countries: ['NL'],
  });
  expect(bank.status, JSON.stringify(bank.body)).toBe(201);
});

afterAll(async () => h?.close());

/** The buyer lands on return_url with the transaction's id and status; the API agrees. */
async function expectReturned(page: Page, linkId: string, status: string, currency = 'USD') {
  await page.waitForURL(/\/healthz\?shop=1&transaction_id=/);
  const url = new URL(page.url());
  expect(url.searchParams.get('transaction_status')).toBe(status);
  const transaction = await api('GET', `/transactions/${url.searchParams.get('transaction_id')}`);
  expect(transaction.body).toMatchObject({ status, amount: 1250, currency });
  expect(
    (await api('GET', `/transactions?payment_link_id=${linkId}`)).body.items.map((t: { id: string }) => t.id),
  ).toEqual([transaction.body.id]);
  expect((await api('GET', `/payment-links/${linkId}`)).body.status).toBe('completed');
}

describe('happy', () => {
  it('pays with an approving card and sends the buyer to return_url', async () => {
    const link = await createLink();
    const { page, problems } = await openPage();
    await page.goto(link.url);
    await expect(page.getByRole('heading', { name: "Payment to Ada's Tea Shop" }).isVisible()).resolves.toBe(true);
    expect(await page.locator('.amount').textContent()).toBe('$12.50');
    await shot(page, '01-form');
    await fillCard(page, '4111111111111111');
    await page.getByRole('button', { name: 'Pay $12.50' }).click();
    await expectReturned(page, link.id, 'authorization_succeeded');
    expect(problems).toEqual([]);
    await page.goto(link.url);
    await expect(page.getByRole('heading', { name: 'Payment successful' }).isVisible()).resolves.toBe(true);
    expect(await page.locator('#pay-form').count()).toBe(0);
    await shot(page, '02-completed');
  });

  it('declines a card with a message the buyer can act on; the link stays payable', async () => {
    const link = await createLink();
    const { page, problems } = await openPage();
    await page.goto(link.url);
    await fillCard(page, '4000000000000002');
    await page.getByRole('button', { name: /^Pay / }).click();
    await page.waitForFunction(() => document.getElementById('status')?.textContent?.includes('declined'));
    expect(await page.locator('#status').textContent()).toBe(
      'Your card was declined. Try another card or contact your bank.',
    );
    await shot(page, '03-declined');
    expect((await api('GET', `/payment-links/${link.id}`)).body.status).toBe('active');
    const declined = (await api('GET', `/transactions?payment_link_id=${link.id}`)).body.items;
    expect(declined.map((t: { status: string }) => t.status)).toEqual(['authorization_declined']);
    expect(problems).toEqual([]);
  });

  it('goes through the 3DS challenge page and back to return_url', async () => {
    const link = await createLink();
    const { page } = await openPage();
    await page.goto(link.url);
    await fillCard(page, '4000000000003220');
    await page.getByRole('button', { name: /^Pay / }).click();
    await page.waitForURL(/\/sandbox\/challenges\//);
    await shot(page, '04-3ds-challenge');
    await page.getByRole('button', { name: 'Complete' }).click();
    await expectReturned(page, link.id, 'authorization_succeeded');
  });

  it('pays with a redirect method through its approval page and back', async () => {
    const link = await createLink({ currency: 'EUR', country: 'NL', intent: 'capture' });
    const { page, problems } = await openPage();
    await page.goto(link.url);
    await page.getByRole('button', { name: /^Pay with / }).click();
    await page.waitForURL(/\/sandbox\/approvals\//);
    await shot(page, '08-redirect-approval');
    await page.getByRole('button', { name: 'Approve' }).click();
    await expectReturned(page, link.id, 'capture_succeeded', 'EUR');
    expect(problems).toEqual([]);
  });

  it('works on a 390 px wide phone screen', async () => {
    const link = await createLink({ locale: 'pt-BR' });
    const { page, problems } = await openPage(390);
    await page.goto(link.url);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    const labelled = await page.evaluate(() =>
      [...document.querySelectorAll('input[type=text]')].every((input) =>
        document.querySelector(`label[for="${input.id}"]`),
      ),
    );
    expect(labelled).toBe(true);
    await shot(page, '05-phone-390px');
    await page.getByLabel('Número do cartão').fill('4111111111111111');
    await page.getByLabel('Validade (MM/AA)').fill('12/40');
    await page.getByLabel('Código de segurança').fill('123');
    await page.keyboard.press('Enter');
    await expectReturned(page, link.id, 'authorization_succeeded');
    expect(problems).toEqual([]);
  });
});

describe('errors', () => {
  it('shows an expired link clearly and takes no payment through it', async () => {
    const link = await createLink();
    const { page } = await openPage(390);
    await page.goto(link.url);
    expect((await api('POST', `/payment-links/${link.id}/expire`)).status).toBe(204);
    await fillCard(page, '4111111111111111');
    await page.getByRole('button', { name: /^Pay / }).click();
    await page.waitForFunction(() => document.getElementById('status')?.className.includes('error'));
    await page.goto(link.url);
    await expect(page.getByRole('heading', { name: 'This payment link has expired' }).isVisible()).resolves.toBe(true);
    expect(await page.locator('#pay-form').count()).toBe(0);
    await shot(page, '06-expired');
    expect((await api('GET', `/transactions?payment_link_id=${link.id}`)).body.items).toEqual([]);
  });

  it('shows a completed link as used and takes no second payment', async () => {
    const link = await createLink();
    const { page } = await openPage();
    await page.goto(link.url);
    await fillCard(page, '4111111111111111');
    const { page: second } = await openPage();
    await second.goto(link.url);
    await page.getByRole('button', { name: /^Pay / }).click();
    await expectReturned(page, link.id, 'authorization_succeeded');
    // The second tab still shows the form it loaded before: its payment is refused.
    await fillCard(second, '4111111111111111');
    await second.getByRole('button', { name: /^Pay / }).click();
    await second.waitForFunction(() => document.getElementById('status')?.className.includes('error'));
    expect(await second.locator('#status').textContent()).toBe('This payment link can no longer be paid.');
    await shot(second, '07-second-payer-refused');
    expect((await api('GET', `/transactions?payment_link_id=${link.id}`)).body.items).toHaveLength(1);
    await second.goto(link.url);
    expect(await second.getByText('This payment link has already been used.').isVisible()).toBe(true);
  });
});
