import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserHarness, type BrowserHarness } from '../helpers/browser.ts';
import {
  axeProblems,
  createUsersBeforeStart,
  enrollAuthenticator,
  heading,
  openConsolePage,
  setUpPassword,
  signInWithPassword,
  unexpectedProblems,
} from '../helpers/dashboard-browser.ts';
import { totpCode } from '../helpers/dashboard.ts';

/**
 * The dashboard console (docs/dashboard.md, "The console") in Debian's chromium against a real
 * server: an administrator's first sign-in (set-up link, password, authenticator enrolment) and a
 * later one with password and code; connecting a sandbox payment service; finding a transaction by
 * its external identifier and refunding part of it; an API key whose private key is shown once; a
 * customer-support user who sees only what its role allows while the API refuses the rest; an
 * accessibility scan of every page; the main pages on a 390 px phone. No CSP violation, script
 * error or failed request on any page. Screenshots go to test/browser/screenshots/.
 */

const { users, beforeStart } = createUsersBeforeStart([
  { email: 'admin@example.com', roles: ['administrator'] },
  { email: 'support@example.com', roles: ['customer-support'] },
]);
const [admin, support] = users as [(typeof users)[0], (typeof users)[0]];
const EXTERNAL_ID = 'order-7731-console';
const unexpected = (problems: string[]) => unexpectedProblems(problems);
const SECRET_VALUE = 'sk_sandbox_never_shown_again_81f3';

let h: BrowserHarness;
let page: Page;
let problems: string[];
let secret = '';
let transactionId = '';

beforeAll(async () => {
  h = await startBrowserHarness({ beforeStart });
  ({ page, problems } = await h.openPage(1280));
});
afterAll(async () => h?.close());

describe('happy', () => {
  it('signs an administrator in the first time (set-up link, password, authenticator), then with password and code', async () => {
    await setUpPassword(page, h.base, admin);
    await h.shot(page, 'dashboard-sign-in');
    // A wrong password: the API's refusal is shown, and the page stays.
    await page.getByLabel('E-mail address').fill(admin.email);
    await page.getByLabel('Password').fill('not the password at all');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('heading', { name: 'Sign in' }).isVisible()).toBe(true);
    await signInWithPassword(page, admin.email);
    secret = await enrollAuthenticator(page);
    await heading(page, 'Overview');
    // The overview's figures are still loading when its heading shows: signing out now would end
    // the session under their requests (401s of our own making, which CI's faster runs caught).
    await page.waitForLoadState('networkidle');
    await page.getByText('admin', { exact: true }).click();
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await signInWithPassword(page, admin.email);
    await page.getByRole('heading', { name: 'Second factor' }).waitFor();
    await page.getByLabel('6-digit code from your authenticator app').fill(await totpCode(secret, 1));
    await page.getByRole('button', { name: 'Verify' }).click();
    await heading(page, 'Overview');
    // Only this origin: the session cookie is the credential, not a token in the page.
    expect(await page.evaluate(() => Object.keys(localStorage).filter((k) => /token|session/i.test(k)))).toEqual([]);
    expect(unexpected(problems)).toEqual([]);
  });

  it('connects a sandbox payment service from its definition, secrets write-only, and disables it and enables it again', async () => {
    await openConsolePage(page, h.base, '/payment-services', 'Payment services');
    await page.getByText('No payment service is connected yet.').waitFor();
    await page.locator('a[href="/dashboard/payment-services/connect/mock-card"]').click();
    await heading(page, /^Connect /);
    await page.getByLabel(/^Name/).fill('Sandbox cards');
    await page.getByLabel('Merchant ID').fill('sandbox-merchant-1');
    const secretInput = page.getByLabel('API key (optional)');
    expect(await secretInput.getAttribute('type')).toBe('password');
    await secretInput.fill(SECRET_VALUE);
    await page.getByLabel('Accepted currencies').fill('EUR, USD');
    await page.getByLabel('Accepted countries').fill('DE, FR');
    await page.getByRole('button', { name: 'Verify credentials' }).click();
    await page.getByText('The credentials passed the check.').waitFor();
    await page.getByRole('button', { name: 'Connect', exact: true }).click();
    await heading(page, 'Payment services');
    const row = page.getByRole('row', { name: /Sandbox cards/ });
    await row.getByText('active').waitFor();
    await row.getByRole('button', { name: 'Disable Sandbox cards' }).click();
    await row.getByText('disabled').waitFor();
    await row.getByRole('button', { name: 'Enable Sandbox cards' }).click();
    await row.getByText('active').waitFor();
    await h.shot(page, 'dashboard-payment-services');
    expect(await page.content()).not.toContain(SECRET_VALUE);
    const listed = await h.api('GET', '/payment-services');
    expect(listed.body.items.map((s: { display_name: string; active: boolean }) => [s.display_name, s.active])).toEqual(
      [['Sandbox cards', true]],
    );
    expect(JSON.stringify(listed.body)).not.toContain(SECRET_VALUE);
    expect(unexpected(problems)).toEqual([]);
  });

  it('finds a transaction by its external identifier and refunds part of it, with confirmation and its result', async () => {
    const card = { method: 'card', number: '4111111111111111', expiration_date: '12/40', security_code: '123' };
    for (const [amount, externalId] of [
      [1500, 'other-order-1'],
      [5000, EXTERNAL_ID],
      [900, 'other-order-2'],
    ] as const) {
      const res = await h.api('POST', '/transactions', {
        amount,
        currency: 'EUR',
        country: 'DE',
        intent: 'capture',
        external_identifier: externalId,
        payment_method: card,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      if (externalId === EXTERNAL_ID) transactionId = res.body.id;
    }
    await openConsolePage(page, h.base, '/transactions', 'Transactions');
    await page.getByLabel('Search').fill(EXTERNAL_ID);
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => page.locator('tbody tr').count()).toBe(1);
    await page.locator('tbody tr').getByText(EXTERNAL_ID).waitFor();
    await page.locator('tbody tr a').first().click();
    await heading(page, /€50\.00/);
    await page.getByText('•••• 1111').first().waitFor();
    await page.getByLabel(/^Amount \(EUR\)/).fill('12.50');
    await page.getByRole('button', { name: 'Refund', exact: true }).click();
    await page.getByText('Refund €12.50?').waitFor();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /^Refund: / })
      .waitFor();
    await page.getByRole('table', { name: 'Refunds' }).getByText('€12.50').waitFor();
    await h.shot(page, 'dashboard-transaction-refunded');
    const refunds = await h.api('GET', `/transactions/${transactionId}/refunds`);
    expect(refunds.body.items.map((r: { amount: number }) => r.amount)).toEqual([1250]);
    // The card is shown masked; its number is in no page.
    expect(await page.content()).not.toContain('4111111111111111');
    expect(unexpected(problems)).toEqual([]);
  });

  it('shows the volume, count and authorization rate of the last 24 h on the overview', async () => {
    await openConsolePage(page, h.base, '/', 'Overview');
    await page.getByRole('button', { name: '24 h' }).click();
    const figure = (title: string) =>
      page
        .locator('section.metric')
        .filter({ has: page.getByRole('heading', { name: title }) })
        .locator('.figure');
    await figure('Volume').filter({ hasText: '€74.00' }).waitFor();
    await figure('Transactions').filter({ hasText: /^3$/ }).waitFor();
    await figure('Authorization rate').filter({ hasText: '100.0 %' }).waitFor();
    expect(await page.locator('.chart canvas').count()).toBe(3);
    expect(unexpected(problems)).toEqual([]);
  });

  it('creates two rules, reorders them, and the dry run beside them changes with the order', async () => {
    await openConsolePage(page, h.base, '/routing', 'Routing');
    await page.getByText('No rule for this action').waitFor();
    for (const [description, currency] of [
      ['USD only', 'USD'],
      ['Everything', null],
    ] as const) {
      await page.getByLabel('Description').fill(description);
      if (currency) {
        await page.getByRole('button', { name: 'Add a condition' }).click();
        await page.getByLabel('Condition 1: field').selectOption('currency');
        await page.getByLabel(/^Value$/).fill(currency);
      }
      await page.getByRole('checkbox', { name: 'Sandbox cards' }).check();
      await page.getByRole('button', { name: 'Create rule' }).click();
      await page.locator('.rule').filter({ hasText: description }).waitFor();
    }
    const dryRun = page.getByRole('complementary', { name: 'Dry run' });
    await dryRun.getByRole('button', { name: 'Try it' }).click();
    await dryRun.getByText('Rule 2 matches').waitFor();
    await dryRun.getByText(/Rule 1: does not match \(conditions/).waitFor();
    await h.shot(page, 'dashboard-routing-dry-run');
    await page.getByRole('button', { name: 'Move rule 2 up' }).click();
    await page.locator('.rule').first().filter({ hasText: '1. Everything' }).waitFor();
    // A USD payment now meets "Everything" first: "USD only" would match, but comes second.
    await dryRun.getByLabel('Currency').fill('USD');
    await dryRun.getByRole('button', { name: 'Try it' }).click();
    await dryRun.getByText('Rule 1 matches').waitFor();
    await dryRun.getByText('Rule 2: does not match (earlier rule matched)').waitFor();
    const rules = await h.api('GET', '/flows/card-transaction/actions/route-transaction/rules');
    expect(rules.body.items.map((r: { description: string }) => r.description)).toEqual(['Everything', 'USD only']);
    expect(unexpected(problems)).toEqual([]);
  });

  it('creates a report, and downloads the file of its run', async () => {
    await openConsolePage(page, h.base, '/reports', 'Reports');
    await page.getByLabel(/^Name/).fill('All transactions');
    await page.getByRole('button', { name: 'Create report' }).click();
    const download = page.getByRole('button', { name: 'Download All transactions' });
    await expect
      .poll(
        async () => {
          await page.getByRole('button', { name: 'Refresh' }).click();
          return download.count();
        },
        { timeout: 60_000, interval: 1_000 },
      )
      .toBe(1);
    const [file] = await Promise.all([page.waitForEvent('download'), download.click()]);
    expect(file.suggestedFilename()).toMatch(/\.csv\.gz$/);
    expect(unexpected(problems)).toEqual([]);
  });

  it('creates an API key and shows its private key once', async () => {
    await openConsolePage(page, h.base, '/api-keys', 'API keys');
    await page.getByLabel(/^Name/).fill('Order system');
    await page.getByRole('button', { name: 'Create key' }).click();
    const pem = await page.getByTestId('private-key').inputValue();
    expect(pem).toContain('-----BEGIN PRIVATE KEY-----');
    await h.shot(page, 'dashboard-api-key-created');
    await page.getByRole('button', { name: 'I have stored it' }).click();
    await page.getByRole('row', { name: /Order system/ }).waitFor();
    expect(await page.getByTestId('private-key').count()).toBe(0);
    await page.reload();
    await heading(page, 'API keys');
    await page.getByRole('row', { name: /Order system/ }).waitFor();
    expect(await page.content()).not.toContain(pem.split('\n')[1]!);
    expect(unexpected(problems)).toEqual([]);
  });
});

describe('performance', () => {
  it('serves the first page in under 300 kB gzipped, its hashed assets cached for a year', async () => {
    const html = await (await fetch(`${h.base}/dashboard/`)).text();
    const assets = [...html.matchAll(/\/dashboard\/assets\/[\w.-]+/g)].map((m) => m[0]);
    expect(assets.length).toBeGreaterThanOrEqual(2);
    let total = html.length;
    for (const asset of assets) {
      const res = await fetch(`${h.base}${asset}`, { headers: { 'accept-encoding': 'gzip' } });
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(res.headers.get('content-encoding')).toBe('gzip');
      total += Number(res.headers.get('content-length'));
    }
    console.log(`/dashboard/ first page: ${(total / 1024).toFixed(1)} kB gzipped (${assets.join(', ')})`);
    expect(total).toBeLessThan(300 * 1024);
  });
});

describe('security', () => {
  it('shows a customer-support user only what its role allows, and the API refuses the rest', async () => {
    const buyer = await h.api('POST', '/buyers', {
      display_name: 'Ada',
      external_identifier: 'buyer-ada',
      billing_details: { first_name: 'Ada', last_name: 'Lovelace', email_address: 'ada@example.com' },
    });
    expect(buyer.status, JSON.stringify(buyer.body)).toBe(201);
    const other = await h.openPage(1280);
    await setUpPassword(other.page, h.base, support);
    await signInWithPassword(other.page, support.email);
    await heading(other.page, 'Overview');
    const nav = other.page.getByRole('navigation', { name: 'Pages' });
    for (const allowed of ['Transactions', 'Buyers', 'Payment links'])
      await nav.getByRole('link', { name: allowed }).waitFor();
    for (const refused of ['API keys', 'Payment services', 'Routing', 'Webhooks', 'Settings', 'Audit log'])
      expect(await nav.getByRole('link', { name: refused }).count(), refused).toBe(0);
    // Without pii-viewer, the API masks the buyer's personal data: the page shows what it is given.
    await openConsolePage(other.page, h.base, `/buyers/${buyer.body.id}`, 'Ada');
    await other.page.getByText('buyer-ada').waitFor();
    expect(await other.page.content()).not.toContain('ada@example.com');
    await openConsolePage(page, h.base, `/buyers/${buyer.body.id}`, 'Ada');
    await page.getByText('ada@example.com').waitFor();
    await other.page.goto(`${h.base}/dashboard/api-keys`);
    await other.page.getByText('Your role does not allow this page in this merchant account.').waitFor();
    expect(await other.page.getByRole('button', { name: 'Create key' }).count()).toBe(0);
    // The API refuses what the page does not offer, the CSRF token and the cookie notwithstanding.
    const status = await other.page.evaluate(async () => {
      const session = await (await fetch('/dashboard/api/session')).json();
      const res = await fetch('/api-key-pairs', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': session.csrf_token },
        body: JSON.stringify({ display_name: 'not allowed' }),
      });
      return res.status;
    });
    expect(status).toBe(403);
    await h.shot(other.page, 'dashboard-customer-support');
    expect(unexpected(other.problems).filter((p) => !p.startsWith('403 '))).toEqual([]);
    await other.page.context().close();
  });
});

describe('accessibility and small screens', () => {
  const PAGES: Array<[string, string | RegExp, string]> = [
    ['/', 'Overview', 'overview'],
    ['/transactions', 'Transactions', 'transactions'],
    ['/buyers', 'Buyers', 'buyers'],
    ['/payment-services', 'Payment services', 'payment-services'],
    ['/payment-services/connect/mock-card', /^Connect /, 'connect-payment-service'],
    ['/routing', 'Routing', 'routing'],
    ['/payment-links', 'Payment links', 'payment-links'],
    ['/payouts', 'Payouts', 'payouts'],
    ['/reports', 'Reports', 'reports'],
    ['/webhooks', 'Webhooks', 'webhooks'],
    ['/monitoring', 'Monitoring', 'monitoring'],
    ['/audit-log', 'Audit log', 'audit-log'],
    ['/api-keys', 'API keys', 'api-keys'],
    ['/users', 'Users and roles', 'users'],
    ['/settings', 'Settings', 'settings'],
  ];

  it('has no serious or critical accessibility violation on any page', async () => {
    const found: string[] = [];
    for (const [path, title, name] of [
      ...PAGES,
      [`/transactions/${transactionId}`, /€50\.00/, 'transaction'] as const,
    ]) {
      await openConsolePage(page, h.base, path, title);
      await h.shot(page, `dashboard-${name}`);
      found.push(...(await axeProblems(page)).map((p) => `${path}: ${p}`));
    }
    const signedOut = await h.openPage(1280);
    await signedOut.page.goto(`${h.base}/dashboard/`);
    await signedOut.page.getByRole('heading', { name: 'Sign in' }).waitFor();
    found.push(...(await axeProblems(signedOut.page)).map((p) => `sign-in: ${p}`));
    await signedOut.page.context().close();
    expect(found).toEqual([]);
    expect(unexpected(problems)).toEqual([]);
  });

  it('fits the main pages on a 390 px phone', async () => {
    const phone = await h.browser.newContext({
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
      storageState: await page.context().storageState(),
    });
    const small = await phone.newPage();
    for (const [path, title, name] of [
      ['/', 'Overview', 'overview'],
      ['/transactions', 'Transactions', 'transactions'],
      [`/transactions/${transactionId}`, /€50\.00/, 'transaction'],
      ['/payment-services', 'Payment services', 'payment-services'],
      ['/api-keys', 'API keys', 'api-keys'],
    ] as const) {
      await openConsolePage(small, h.base, path, title);
      expect(await small.evaluate(() => document.documentElement.scrollWidth), path).toBeLessThanOrEqual(390);
      await h.shot(small, `dashboard-${name}-390px`);
    }
    await small.getByRole('button', { name: 'Menu' }).click();
    await small.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Transactions' }).click();
    await heading(small, 'Transactions');
    await phone.close();
  });
});
