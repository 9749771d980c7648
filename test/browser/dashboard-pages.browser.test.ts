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

/**
 * The depth of the dashboard console's pages (docs/dashboard.md, "Pages") in Debian's chromium
 * against a real server: a transaction's settlements and attempts, reordering rules by dragging
 * them with the dry run following, creating a payout, editing a merchant account and its 3-D
 * Secure configurations, a report's schedule and executions, monitoring metrics beside the
 * incidents, and the audit log's filters. Settlements are made at once (SETTLEMENT_DELAY_SECONDS=0).
 * Screenshots go to test/browser/screenshots/.
 */

const { users, beforeStart } = createUsersBeforeStart([{ email: 'admin@example.com', roles: ['administrator'] }]);
const admin = users[0]!;
const unexpected = (problems: string[]) => unexpectedProblems(problems);
const card = { method: 'card', number: '4111111111111111', expiration_date: '12/40', security_code: '123' };

let h: BrowserHarness;
let page: Page;
let problems: string[];
let serviceId = '';
let transactionId = '';

async function created(res: Promise<{ status: number; body: any }>, status = 201): Promise<any> {
  const answer = await res;
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  return answer.body;
}

beforeAll(async () => {
  h = await startBrowserHarness({ beforeStart, env: { SETTLEMENT_DELAY_SECONDS: '0' } });
  ({ page, problems } = await h.openPage(1280));
  serviceId = (
    await created(
      h.api('POST', '/payment-services', {
        display_name: 'Sandbox cards',
        payment_service_definition_id: 'mock-card',
        fields: [{ key: 'merchant_id', value: 'sandbox-merchant-1' }],
        accepted_currencies: ['EUR', 'USD'],
        accepted_countries: ['DE', 'US'],
      }),
    )
  ).id;
  await setUpPassword(page, h.base, admin);
  await signInWithPassword(page, admin.email);
  await enrollAuthenticator(page);
  await heading(page, 'Overview');
  await page.waitForLoadState('networkidle');
});
afterAll(async () => h?.close());

describe('happy', () => {
  it("shows a transaction's settlements, its attempts per payment service, captures and refunds", async () => {
    const tx = await created(
      h.api('POST', '/transactions', {
        amount: 5000,
        currency: 'EUR',
        country: 'DE',
        intent: 'authorize',
        external_identifier: 'order-settled-1',
        payment_method: card,
      }),
    );
    await created(h.api('POST', `/transactions/${tx.id}/capture`, { amount: 4000 }), 200);
    await created(h.api('POST', `/transactions/${tx.id}/refunds`, { amount: 1200, reason: 'one item back' }));
    // The settlement jobs run as soon as the capture and the refund are made (SETTLEMENT_DELAY_SECONDS=0).
    await expect
      .poll(async () => (await h.api('GET', `/transactions/${tx.id}/settlements`)).body.items.length, {
        timeout: 30_000,
        interval: 500,
      })
      .toBe(2);
    transactionId = tx.id;
    await openConsolePage(page, h.base, `/transactions/${tx.id}`, /€50\.00/);
    const settlements = page.getByRole('table', { name: 'Settlements' });
    await settlements.getByRole('row', { name: /payment €40\.00/ }).waitFor();
    await settlements.getByRole('row', { name: /refund -€12\.00/ }).waitFor();
    const attempts = page.getByRole('table', { name: 'Sandbox cards' });
    for (const operation of ['authorize', 'capture', 'refund'])
      await attempts.getByRole('row', { name: new RegExp(`${operation} .*succeeded`) }).waitFor();
    await page
      .getByRole('table', { name: 'Captures' })
      .getByRole('row', { name: /€40\.00 succeeded/ })
      .waitFor();
    await page.getByRole('table', { name: 'Refunds' }).getByText('one item back').waitFor();
    await h.shot(page, 'dashboard-pages-transaction');
    expect(unexpected(problems)).toEqual([]);
  });

  it('reorders rules by dragging one onto another, and the dry run beside them follows', async () => {
    const rules = '/flows/card-transaction/actions/route-transaction/rules';
    await created(
      h.api('POST', rules, {
        description: 'USD only',
        conditions: [{ field: 'currency', operator: 'equals', value: 'USD' }],
        outcome: { payment_service_ids: [serviceId] },
      }),
    );
    await created(
      h.api('POST', rules, {
        description: 'Everything',
        conditions: [],
        outcome: { payment_service_ids: [serviceId] },
      }),
    );
    await openConsolePage(page, h.base, '/routing', 'Routing');
    const dryRun = page.getByRole('complementary', { name: 'Dry run' });
    // A EUR payment: "USD only" (rule 1) does not match it, "Everything" (rule 2) does.
    await dryRun.getByRole('button', { name: 'Try it' }).click();
    await dryRun.getByText('Rule 2 matches').waitFor();
    await dryRun.getByText(/Rule 1: does not match \(conditions: /).waitFor();
    // Drag "Everything" (rule 2) onto rule 1: the dry run is tried again by itself.
    await page.locator('.rule').nth(1).dragTo(page.locator('.rule').nth(0));
    await page.locator('.rule').first().filter({ hasText: '1. Everything' }).waitFor();
    await dryRun.getByText('Rule 1 matches').waitFor();
    await dryRun.getByText(/Rule 2: does not match \(conditions: /).waitFor();
    await dryRun.locator('.verdict.matched').filter({ hasText: 'Everything' }).waitFor();
    await h.shot(page, 'dashboard-pages-routing-dragged');
    const listed = await h.api('GET', rules);
    expect(listed.body.items.map((r: { description: string }) => r.description)).toEqual(['Everything', 'USD only']);
    // Back with the keyboard's buttons: the dry run follows again.
    await page.getByRole('button', { name: 'Move rule 2 up' }).click();
    await page.locator('.rule').first().filter({ hasText: '1. USD only' }).waitFor();
    await dryRun.getByText('Rule 2 matches').waitFor();
    expect(unexpected(problems)).toEqual([]);
  });

  it('creates a payout from the form, finds it with the filters and opens it', async () => {
    await openConsolePage(page, h.base, '/payouts', 'Payouts');
    await page.getByText('No payout matches.').waitFor();
    const form = page.getByRole('form', { name: 'Create a payout' });
    await form.getByLabel('Amount').fill('25.00');
    await form.getByLabel('Currency').fill('USD');
    await form.getByLabel('Payment service').selectOption({ label: 'Sandbox cards' });
    await form.getByLabel('External identifier (optional)').fill('po-console-1');
    await form.getByLabel('Card number', { exact: true }).fill('4111 1111 1111 1111');
    await form.getByLabel('Expiry (MM/YY)').fill('12/40');
    await form.getByRole('button', { name: 'Create payout' }).click();
    await page.getByRole('status').filter({ hasText: 'Payout of $25.00: succeeded' }).waitFor();
    expect(await form.getByLabel('Card number', { exact: true }).inputValue()).toBe('');
    const filters = page.getByRole('form', { name: 'Filter payouts' });
    await filters.getByLabel('Status').selectOption('declined');
    await filters.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('No payout matches.').waitFor();
    await filters.getByLabel('Status').selectOption('succeeded');
    await filters.getByLabel('External identifier').fill('po-console-1');
    await filters.getByRole('button', { name: 'Apply' }).click();
    const row = page
      .getByRole('table', { name: 'Payouts' })
      .getByRole('row', { name: /\$25\.00 succeeded visa •••• 1111/ });
    await row.waitFor();
    await h.shot(page, 'dashboard-pages-payouts');
    await row.getByRole('link').click();
    await heading(page, 'Payout $25.00 · succeeded');
    await page.getByText('po-console-1').waitFor();
    await h.shot(page, 'dashboard-pages-payout');
    expect(await page.content()).not.toContain('4111111111111111');
    const listed = await h.api('GET', '/payouts');
    expect(listed.body.items.map((p: { amount: number; currency: string }) => [p.amount, p.currency])).toEqual([
      [2500, 'USD'],
    ]);
    expect(unexpected(problems)).toEqual([]);
  });

  it("edits a merchant account's name, and adds, edits and deletes a 3-D Secure configuration", async () => {
    await openConsolePage(page, h.base, '/settings', 'Settings');
    await page.getByRole('button', { name: 'Edit Default' }).click();
    const edit = page.getByRole('form', { name: 'Edit merchant account default' });
    await edit.getByLabel('Name').fill('Main shop');
    await edit.getByLabel('Over-capture percentage').fill('15');
    await edit.getByRole('button', { name: 'Save account' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved Main shop.' }).waitFor();
    await page
      .getByRole('table', { name: 'Merchant accounts' })
      .getByRole('cell', { name: 'Main shop', exact: true })
      .waitFor();
    const account = await h.api('GET', '/merchant-accounts/default');
    expect([account.body.display_name, account.body.over_capture_percentage]).toEqual(['Main shop', 15]);

    await page.getByText('No 3-D Secure configuration.').waitFor();
    const add = page.getByRole('form', { name: 'Add a configuration' });
    for (const [field, value] of [
      ['Card scheme', 'visa'],
      ['Currency (empty: every currency)', 'EUR'],
      ['Acquirer BIN', '400000'],
      ['Acquirer merchant id', 'MID-1'],
      ['Merchant name', 'Main shop'],
      ['Merchant country (ISO numeric)', '276'],
      ['Merchant category code', '5999'],
      ['Merchant URL', 'https://shop.example'],
    ] as const)
      await add.getByLabel(field).fill(value);
    await add.getByRole('button', { name: 'Add configuration' }).click();
    await page.getByRole('status').filter({ hasText: 'Configuration added.' }).waitFor();
    await page.getByRole('button', { name: 'Edit visa EUR' }).click();
    const change = page.getByRole('form', { name: 'Edit the configuration' });
    await change.getByLabel('Acquirer merchant id').fill('MID-2');
    await change.getByRole('button', { name: 'Save configuration' }).click();
    await page.getByRole('status').filter({ hasText: 'Configuration saved.' }).waitFor();
    await page.getByRole('cell', { name: 'MID-2' }).waitFor();
    await h.shot(page, 'dashboard-pages-settings');
    const configs = `/merchant-accounts/default/three-ds-configurations`;
    expect(
      (await h.api('GET', configs)).body.items.map((c: { merchant_acquirer_id: string }) => c.merchant_acquirer_id),
    ).toEqual(['MID-2']);
    await page.getByRole('button', { name: 'Delete visa EUR' }).click();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByText('No 3-D Secure configuration.').waitFor();
    expect((await h.api('GET', configs)).body.items).toEqual([]);
    expect(unexpected(problems)).toEqual([]);
  });

  it("pauses and resumes a report's schedule, and downloads a file from a report's executions", async () => {
    const report = (name: string, schedule: string) => ({
      name,
      schedule,
      schedule_enabled: true,
      schedule_timezone: 'Etc/UTC',
      spec: { model: 'transactions', params: {} },
    });
    const weekly = await created(h.api('POST', '/reports', report('Weekly sales', 'weekly')));
    await created(h.api('POST', '/reports', report('Export now', 'once')));
    await openConsolePage(page, h.base, '/reports', 'Reports');
    await page.getByRole('button', { name: 'Pause Weekly sales' }).click();
    await page.getByRole('button', { name: 'Resume Weekly sales' }).waitFor();
    await page.getByRole('row', { name: /Weekly sales .*weekly \(paused\)/ }).waitFor();
    expect((await h.api('GET', `/reports/${weekly.id}`)).body.schedule_enabled).toBe(false);
    await page.getByRole('button', { name: 'Resume Weekly sales' }).click();
    await page.getByRole('button', { name: 'Pause Weekly sales' }).waitFor();
    expect((await h.api('GET', `/reports/${weekly.id}`)).body.schedule_enabled).toBe(true);
    await page.getByRole('button', { name: 'Executions of Weekly sales' }).click();
    await page.getByText('No execution yet').waitFor();
    await page.getByRole('button', { name: 'Executions of Export now' }).click();
    const executions = page.getByRole('table', { name: 'Executions of Export now' });
    const download = executions.getByRole('button', { name: /^Download the run of / });
    await expect
      .poll(
        async () => {
          await page.getByRole('button', { name: 'Refresh executions' }).click();
          return download.count();
        },
        { timeout: 60_000, interval: 1_000 },
      )
      .toBe(1);
    await h.shot(page, 'dashboard-pages-reports');
    const [file] = await Promise.all([page.waitForEvent('download'), download.click()]);
    expect(file.suggestedFilename()).toMatch(/\.csv\.gz$/);
    expect(unexpected(problems)).toEqual([]);
  });

  it("shows the monitoring metrics beside the incidents, and a metric's own incidents", async () => {
    await created(
      h.api('POST', '/monitoring/metrics', {
        display_name: 'Card authorization rate',
        spec: { model: 'auth_rate', params: { filters: { datetime_range: 'PT60M/now', method: ['card'] } } },
        alerting_policy: { strategy: 'threshold', params: { alert_gt: null, alert_lt: 0.8 } },
        incident_policy: { strategy: 'debouncing', params: { create_after_n: 3, close_after_n: 2 } },
      }),
    );
    await openConsolePage(page, h.base, '/monitoring', 'Monitoring');
    const metrics = page.getByRole('table', { name: 'Monitoring metrics' });
    await metrics.getByRole('cell', { name: /^Card authorization rate/ }).waitFor();
    await metrics.getByText('Alerts below 80.0 %').waitFor();
    await page.getByText('No incident: every monitored rate is healthy.').waitFor();
    await page.getByRole('button', { name: 'Incidents of Card authorization rate' }).click();
    await page.getByRole('heading', { name: 'Incidents of Card authorization rate' }).waitFor();
    await page.getByText('No incident: every monitored rate is healthy.').waitFor();
    await h.shot(page, 'dashboard-pages-monitoring');
    expect(unexpected(problems)).toEqual([]);
  });

  // The entries are the changes the cases above made (as the administrator, or with the API's key).
  it('filters the audit log by action, resource type and user', async () => {
    await openConsolePage(page, h.base, '/audit-log', 'Audit log');
    const filters = page.getByRole('form', { name: 'Filter the audit log' });
    const rows = page.getByRole('table', { name: 'Audit log' }).locator('tbody tr');
    await filters.locator('select[name="action"]').selectOption('deleted');
    await filters.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => rows.count()).toBe(1);
    await rows.getByText('three ds configuration').waitFor();
    await filters.getByRole('button', { name: 'Clear' }).click();
    await filters.getByLabel('Resource type').fill('payment-service');
    await filters.getByRole('button', { name: 'Apply' }).click();
    await rows.filter({ hasText: 'Sandbox cards' }).first().waitFor();
    await filters.getByRole('button', { name: 'Clear' }).click();
    await filters.getByRole('button', { name: 'My actions' }).click();
    await rows.filter({ hasText: 'merchant account: Main shop' }).waitFor();
    expect(await rows.filter({ hasText: 'Sandbox cards' }).count()).toBe(0);
    const mine = await filters.getByLabel('User id').inputValue();
    expect(mine).toMatch(/^[0-9a-f-]{36}$/);
    const api = await h.api('GET', `/audit-logs?user_id=${mine}&limit=100`);
    await expect.poll(() => rows.count()).toBe(Math.min(api.body.items.length, 20));
    await filters.getByRole('button', { name: 'Clear' }).click();
    // The newest entry may be the API key's (its id is the key pair's): take the first row of a user.
    await rows
      .filter({ hasNotText: 'API key' })
      .getByRole('button', { name: /^Only the actions of / })
      .first()
      .click();
    expect(await filters.getByLabel('User id').inputValue()).toBe(mine);
    await h.shot(page, 'dashboard-pages-audit-log');
    expect(unexpected(problems)).toEqual([]);
  });
});

describe('accessibility and small screens', () => {
  it('fits each of these pages on a 390 px phone with no serious or critical accessibility violation', async () => {
    const phone = await h.browser.newContext({
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
      storageState: await page.context().storageState(),
    });
    const small = await phone.newPage();
    const found: string[] = [];
    for (const [path, title, name] of [
      [`/transactions/${transactionId}`, /€50\.00/, 'transaction'],
      ['/routing', 'Routing', 'routing'],
      ['/payouts', 'Payouts', 'payouts'],
      ['/settings', 'Settings', 'settings'],
      ['/reports', 'Reports', 'reports'],
      ['/monitoring', 'Monitoring', 'monitoring'],
      ['/audit-log', 'Audit log', 'audit-log'],
    ] as const) {
      await openConsolePage(small, h.base, path, title);
      expect(await small.evaluate(() => document.documentElement.scrollWidth), path).toBeLessThanOrEqual(390);
      await h.shot(small, `dashboard-pages-${name}-390px`);
      found.push(...(await axeProblems(small)).map((p) => `${path}: ${p}`));
    }
    expect(found).toEqual([]);
    await phone.close();
  });
});
