import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserHarness, type BrowserHarness } from '../helpers/browser.ts';

/**
 * Apple Pay and Google Pay on the hosted page in chromium against `svc serve` (sandbox): a
 * merchant with both wallets shows their buttons, which open the simulated wallet sheet; its cards
 * become real sandbox tokens and pay the link. The outcome is checked through the API.
 */

const SHOP = 'wallet-shop';
let h: BrowserHarness;
const api = (method: string, url: string, body?: unknown, merchant = SHOP) => h.api(method, url, body, merchant);

beforeAll(async () => {
  h = await startBrowserHarness();
  expect((await h.api('POST', '/merchant-accounts', { id: SHOP, display_name: 'Wallet Shop' })).status).toBe(201);
  for (const merchant of [SHOP, 'default']) {
    const service = await api(
      'POST',
      '/payment-services',
      {
        display_name: 'Mock card',
        payment_service_definition_id: 'mock-card',
        fields: [{ key: 'merchant_id', value: 'm-1' }],
        accepted_currencies: ['USD'],
        accepted_countries: ['US'],
      },
      merchant,
    );
    expect(service.status, JSON.stringify(service.body)).toBe(201);
  }
  for (const provider of ['apple', 'google']) {
    const wallet = await api('POST', '/digital-wallets', {
      provider,
      merchant_name: 'Wallet Shop',
      accept_terms_and_conditions: true,
    });
    expect(wallet.status, JSON.stringify(wallet.body)).toBe(201);
  }
});

afterAll(async () => h?.close());

async function createLink(merchant = SHOP) {
  const res = await api(
    'POST',
    '/payment-links',
    {
      amount: 1250,
      currency: 'USD',
      country: 'US',
      merchant_name: "Ada's Tea Shop",
      return_url: `${h.base}/healthz?shop=1`,
      cart_items: [{ name: 'Green tea', quantity: 2, unit_amount: 625 }],
    },
    merchant,
  );
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; url: string };
}

const sheet = (page: Page) => page.getByRole('dialog');
const focusInSheet = (page: Page) =>
  page.evaluate(() => document.getElementById('wallet-sheet')!.contains(document.activeElement));

/** The buyer lands on return_url; the link's transactions are as expected, the last one paid by `method`. */
async function expectPaid(page: Page, linkId: string, method: string, statuses: string[]) {
  await page.waitForURL(/\/healthz\?shop=1&transaction_id=/);
  const url = new URL(page.url());
  expect(url.searchParams.get('transaction_status')).toBe('authorization_succeeded');
  const transaction = (await api('GET', `/transactions/${url.searchParams.get('transaction_id')}`)).body;
  expect(transaction).toMatchObject({
    status: 'authorization_succeeded',
    method,
    instrument_type: method,
    amount: 1250,
    currency: 'USD',
    payment_method: { method, label: '1111' },
  });
  expect(
    (await api('GET', `/transactions?payment_link_id=${linkId}`)).body.items.map((t: { status: string }) => t.status),
  ).toEqual(statuses);
  expect((await api('GET', `/payment-links/${linkId}`)).body.status).toBe('completed');
}

describe('happy', () => {
  it('shows the wallet buttons for a merchant with wallets, and none for one without', async () => {
    const { page, problems } = await h.openPage();
    await page.goto((await createLink()).url);
    await expect(page.getByRole('button', { name: 'Pay with Apple Pay' }).isVisible()).resolves.toBe(true);
    await expect(page.getByRole('button', { name: 'Pay with Google Pay' }).isVisible()).resolves.toBe(true);
    await expect(page.getByLabel('Card number', { exact: true }).isVisible()).resolves.toBe(true);
    await h.shot(page, '10-wallet-buttons');
    await page.goto((await createLink('default')).url);
    expect(await page.locator('button[data-wallet]').count()).toBe(0);
    expect(await page.getByRole('heading', { name: 'Express checkout' }).count()).toBe(0);
    expect(problems).toEqual([]);
  });

  it('pays through the sandbox Google Pay sheet with an approving card and lands at return_url', async () => {
    const link = await createLink();
    const { page, problems } = await h.openPage();
    await page.goto(link.url);
    await page.getByRole('button', { name: 'Pay with Google Pay' }).click();
    await expect(sheet(page).isVisible()).resolves.toBe(true);
    await expect(
      sheet(page).getByRole('heading', { name: 'Google Pay (sandbox test wallet)' }).isVisible(),
    ).resolves.toBe(true);
    expect(await focusInSheet(page)).toBe(true);
    await expect(
      sheet(page)
        .getByRole('button', { name: /Visa ending 4242/ })
        .isVisible(),
    ).resolves.toBe(true);
    await h.shot(page, '11-google-pay-sheet');
    await sheet(page).getByRole('button', { name: 'Visa ending 1111, Approved', exact: true }).click();
    await expectPaid(page, link.id, 'googlepay', ['authorization_succeeded']);
    expect(problems).toEqual([]);
  });

  it('Apple Pay: Escape closes the sheet; a declining card shows the decline and the buyer pays again', async () => {
    const link = await createLink();
    const { page, problems } = await h.openPage();
    await page.goto(link.url);
    const apple = page.getByRole('button', { name: 'Pay with Apple Pay' });
    await apple.click();
    await expect(
      sheet(page).getByRole('heading', { name: 'Apple Pay (sandbox test wallet)' }).isVisible(),
    ).resolves.toBe(true);
    // PAN_ONLY is a Google Pay form: not in Apple Pay's sheet.
    await expect(
      sheet(page)
        .getByRole('button', { name: /Visa ending 4242/ })
        .isVisible(),
    ).resolves.toBe(false);
    await page.keyboard.press('Escape');
    await expect(sheet(page).isVisible()).resolves.toBe(false);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-wallet'))).toBe('applepay');
    await apple.click();
    await sheet(page)
      .getByRole('button', { name: /Visa ending 9995/ })
      .click();
    await page.waitForFunction(() => document.getElementById('status')?.className.includes('error'));
    expect(await page.locator('#status').textContent()).toBe(
      'Your card was declined: there are not enough funds. Try another card.',
    );
    await h.shot(page, '12-apple-pay-declined');
    expect((await api('GET', `/payment-links/${link.id}`)).body.status).toBe('active');
    await apple.click();
    await sheet(page)
      .getByRole('button', { name: /Visa ending 1111/ })
      .click();
    await expectPaid(page, link.id, 'applepay', ['authorization_succeeded', 'authorization_declined']);
    expect(problems).toEqual([]);
  });

  it('fits a 390 px wide phone screen with the wallet buttons and the sheet', async () => {
    const { page, problems } = await h.openPage(390);
    await page.goto((await createLink()).url);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await h.shot(page, '13-wallets-phone-390px');
    await page.getByRole('button', { name: 'Pay with Google Pay' }).click();
    const box = await sheet(page).boundingBox();
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width).toBeLessThanOrEqual(390);
    await h.shot(page, '14-wallet-sheet-phone-390px');
    expect(problems).toEqual([]);
  });
});
