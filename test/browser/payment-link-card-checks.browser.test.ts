import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserHarness, type BrowserHarness } from '../helpers/browser.ts';

/**
 * The hosted payment page's card checks (issue 51, defect 4) in Debian's chromium against `svc
 * serve`: what the buyer sees next to each field before any request is made, what the page says
 * when the server refuses a card, the localized expiry placeholder, and the sandbox 3DS challenge
 * page on a 390 px wide phone.
 */

let h: BrowserHarness;
const api = (method: string, url: string, body?: unknown) => h.api(method, url, body);

async function createLink(extra: Record<string, unknown> = {}) {
  const res = await api('POST', '/payment-links', {
    amount: 1250,
    currency: 'USD',
    country: 'US',
    merchant_name: "Ada's Tea Shop",
    ...extra,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; url: string };
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
});

afterAll(async () => h?.close());

/** What a screen reader gets for an input: aria-invalid, and the text of the elements aria-describedby names. */
async function fieldState(page: Page, id: string) {
  return page.evaluate((inputId) => {
    const input = document.getElementById(inputId)!;
    const described = (input.getAttribute('aria-describedby') ?? '')
      .split(/\s+/)
      .filter(Boolean)
      .map((ref) => document.getElementById(ref));
    const live = described.some(
      (note) => note?.getAttribute('aria-live') === 'polite' || note?.getAttribute('role') === 'alert',
    );
    return {
      invalid: input.getAttribute('aria-invalid'),
      message: described
        .map((note) => note?.textContent ?? '')
        .join(' ')
        .trim(),
      live,
    };
  }, id);
}

const focused = (page: Page) => page.evaluate(() => document.activeElement?.id ?? null);

async function fill(page: Page, card: { number?: string; expiry?: string; code?: string }) {
  await page.locator('#card-number').fill(card.number ?? '');
  await page.locator('#expiration-date').fill(card.expiry ?? '');
  await page.locator('#security-code').fill(card.code ?? '');
}

/** Opens the page of a new link and records every request the page makes to the API. */
async function open(extra: Record<string, unknown> = {}, width?: number) {
  const link = await createLink(extra);
  const { page, problems } = await h.openPage(width);
  const calls: string[] = [];
  page.on('request', (request) => {
    if (request.method() !== 'GET') calls.push(`${request.method()} ${new URL(request.url()).pathname}`);
  });
  await page.goto(link.url);
  return { link, page, problems, calls };
}

describe('errors', () => {
  it('an invalid card number: the message next to the number field, aria-invalid, focus on it, no request; cleared once corrected', async () => {
    const { link, page, problems, calls } = await open();
    await fill(page, { number: '4111 1111 1111 1112', expiry: '12/40', code: '123' });
    await page.getByRole('button', { name: /^Pay / }).click();
    expect(await fieldState(page, 'card-number')).toEqual({
      invalid: 'true',
      message: 'The card number is not valid.',
      live: true,
    });
    expect(await fieldState(page, 'expiration-date')).toMatchObject({ invalid: null, message: '' });
    expect(await focused(page)).toBe('card-number');
    expect(await page.locator('#status').textContent()).toBe('Check your card number, expiry date and security code.');
    expect(calls).toEqual([]);
    await h.shot(page, 'checks-01-invalid-number');
    await page.locator('#card-number').fill('4111 1111 1111 1111');
    expect(await fieldState(page, 'card-number')).toMatchObject({ invalid: null, message: '' });
    await page.getByRole('button', { name: /^Pay / }).click();
    await page.getByRole('heading', { name: 'Payment successful' }).waitFor();
    expect((await api('GET', `/payment-links/${link.id}`)).body.status).toBe('completed');
    expect(problems).toEqual([]);
  });

  it('an expired date, or a month that does not exist: the message next to the expiry field', async () => {
    const { page, problems, calls } = await open();
    await fill(page, { number: '4111111111111111', expiry: '01/20', code: '123' });
    await page.keyboard.press('Enter');
    expect(await fieldState(page, 'expiration-date')).toEqual({
      invalid: 'true',
      message: 'This card has expired.',
      live: true,
    });
    expect(await fieldState(page, 'card-number')).toMatchObject({ invalid: null });
    expect(await focused(page)).toBe('expiration-date');
    await h.shot(page, 'checks-02-expired');
    await page.locator('#expiration-date').fill('13/40');
    await page.getByRole('button', { name: /^Pay / }).click();
    expect(await fieldState(page, 'expiration-date')).toMatchObject({
      invalid: 'true',
      message: 'The month must be between 01 and 12.',
    });
    expect(calls).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('an empty form flags every required field and focuses the first', async () => {
    const { page, problems, calls } = await open({}, 390);
    await page.getByRole('button', { name: /^Pay / }).click();
    expect(await fieldState(page, 'card-number')).toEqual({
      invalid: 'true',
      message: 'Enter the card number.',
      live: true,
    });
    expect(await fieldState(page, 'expiration-date')).toEqual({
      invalid: 'true',
      message: 'Enter the expiry date.',
      live: true,
    });
    expect(await fieldState(page, 'security-code')).toEqual({
      invalid: 'true',
      message: 'Enter the security code.',
      live: true,
    });
    expect(await page.locator('#cardholder-name').getAttribute('aria-invalid')).toBeNull();
    expect(await focused(page)).toBe('card-number');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await h.shot(page, 'checks-03-empty-390px');
    expect(calls).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('a card the server refuses (a Visa number of a length Visa does not issue) shows "check your card", not "try again"', async () => {
    const { link, page } = await open();
    await fill(page, { number: '41111111111114', expiry: '12/40', code: '123' });
    await page.getByRole('button', { name: /^Pay / }).click();
    await page.waitForFunction(() => document.getElementById('status')?.className.includes('error'));
    expect(await page.locator('#status').textContent()).toBe('Check your card number, expiry date and security code.');
    expect(await fieldState(page, 'card-number')).toMatchObject({
      invalid: 'true',
      message: 'The card number is not valid.',
    });
    expect(await focused(page)).toBe('card-number');
    expect(await page.getByRole('button', { name: /^Pay / }).isEnabled()).toBe(true);
    await h.shot(page, 'checks-04-server-refused');
    expect((await api('GET', `/transactions?payment_link_id=${link.id}`)).body.items).toEqual([]);
  });

  it('the Spanish page: the MM/AA placeholder and Spanish messages', async () => {
    const { page, problems } = await open({ locale: 'es' });
    expect(await page.locator('#expiration-date').getAttribute('placeholder')).toBe('MM/AA');
    await page.getByRole('button', { name: /^Pagar / }).click();
    expect(await fieldState(page, 'card-number')).toMatchObject({
      invalid: 'true',
      message: 'Introduce el número de tarjeta.',
    });
    expect(await fieldState(page, 'expiration-date')).toMatchObject({
      invalid: 'true',
      message: 'Introduce la fecha de caducidad.',
    });
    expect(await fieldState(page, 'security-code')).toMatchObject({
      invalid: 'true',
      message: 'Introduce el código de seguridad.',
    });
    expect(await page.locator('#status').textContent()).toBe(
      'Comprueba el número de tarjeta, la fecha de caducidad y el código de seguridad.',
    );
    await fill(page, { number: '4111111111111111', expiry: '1/2', code: '12' });
    await page.getByRole('button', { name: /^Pagar / }).click();
    expect(await fieldState(page, 'expiration-date')).toMatchObject({
      message: 'Introduce la fecha de caducidad como MM/AA.',
    });
    expect(await fieldState(page, 'security-code')).toMatchObject({
      message: 'El código de seguridad tiene 3 o 4 cifras.',
    });
    expect(await fieldState(page, 'card-number')).toMatchObject({ invalid: null, message: '' });
    await h.shot(page, 'checks-05-spanish');
    expect(problems).toEqual([]);
  });
});

describe('happy', () => {
  it('a stored card needs neither number nor expiry: choosing it clears their messages, and it pays', async () => {
    const buyer = await api('POST', '/buyers', { display_name: 'Ada' });
    const stored = await api('POST', '/payment-methods', {
      method: 'card',
      number: '5555555555554444',
      expiration_date: '11/39',
      buyer_id: buyer.body.id,
    });
    expect(stored.status, JSON.stringify(stored.body)).toBe(201);
    const { link, page, problems } = await open({ buyer_id: buyer.body.id });
    await page.getByLabel('A new card').check();
    await page.getByRole('button', { name: /^Pay / }).click();
    expect(await fieldState(page, 'card-number')).toMatchObject({ invalid: 'true', message: 'Enter the card number.' });
    await page.getByLabel(/ending 4444/).check();
    expect(await fieldState(page, 'card-number')).toMatchObject({ invalid: null, message: '' });
    expect(await fieldState(page, 'expiration-date')).toMatchObject({ invalid: null, message: '' });
    await page.locator('#security-code').fill('123');
    await page.getByRole('button', { name: /^Pay / }).click();
    await page.getByRole('heading', { name: 'Payment successful' }).waitFor();
    expect((await api('GET', `/payment-links/${link.id}`)).body.status).toBe('completed');
    expect(problems).toEqual([]);
  });

  it('the sandbox 3DS challenge page on a 390 px phone: a viewport, the stylesheet under the CSP, no horizontal scroll, named buttons', async () => {
    const { page, problems } = await open({}, 390);
    await fill(page, { number: '4000 0000 0000 3220', expiry: '12/40', code: '123' });
    await page.getByRole('button', { name: /^Pay / }).click();
    await page.waitForURL(/\/sandbox\/challenges\//);
    const layout = await page.evaluate(() => ({
      viewport: document.querySelector('meta[name=viewport]')?.getAttribute('content'),
      lang: document.documentElement.lang,
      scrollWidth: document.documentElement.scrollWidth,
      font: getComputedStyle(document.body).fontFamily,
      buttonWidth: document.querySelector('button')!.getBoundingClientRect().width,
      inlineStyles: document.querySelectorAll('style, [style]').length,
    }));
    expect(layout).toMatchObject({ viewport: 'width=device-width, initial-scale=1', lang: 'en', inlineStyles: 0 });
    expect(layout.scrollWidth).toBeLessThanOrEqual(390);
    expect(layout.font).toContain('system-ui');
    expect(layout.buttonWidth).toBeGreaterThan(300);
    await expect(page.getByRole('button', { name: 'Complete authentication' }).isVisible()).resolves.toBe(true);
    await expect(page.getByRole('button', { name: 'Fail authentication' }).isVisible()).resolves.toBe(true);
    await h.shot(page, 'checks-06-3ds-challenge-390px');
    expect(problems).toEqual([]);
    await page.getByRole('button', { name: 'Complete authentication' }).click();
    await page.waitForURL(/\/pay\//);
  });
});
