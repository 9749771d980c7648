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
 * Smart routing in the console (docs/dashboard.md, "Pages"; docs/routing.md): route rules with the
 * success-rate and least-cost strategies created through the rule form (their parameters shown
 * only where they apply, a value out of range refused with a message, the API's refusal shown),
 * the strategy of each rule in the list, and a payment service's fee schedule edited through its
 * page; a system-support user reads both but is offered no control it lacks; the pages at 390 px
 * with an axe scan.
 */

const { users, beforeStart } = createUsersBeforeStart([
  { email: 'admin@example.com', roles: ['administrator'] },
  { email: 'support@example.com', roles: ['system-support'] },
]);
const [admin, support] = users as [(typeof users)[0], (typeof users)[0]];
const RULES = '/flows/card-transaction/actions/route-transaction/rules';
/** The API's refusal of a rule naming a deleted service is provoked on purpose (400). */
const unexpected = (problems: string[]) => unexpectedProblems(problems, (p) => /^400 \S+\/rules$/.test(p));

let h: BrowserHarness;
let page: Page;
let problems: string[];
const services: Record<'a' | 'b' | 'gone', string> = { a: '', b: '', gone: '' };

async function connect(name: string): Promise<string> {
  const res = await h.api('POST', '/payment-services', {
    display_name: name,
    payment_service_definition_id: 'mock-card',
    fields: [{ key: 'merchant_id', value: `m-${name.length}` }],
    accepted_currencies: ['EUR', 'USD'],
    accepted_countries: ['DE', 'US'],
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

beforeAll(async () => {
  h = await startBrowserHarness({ beforeStart });
  ({ page, problems } = await h.openPage(1280));
  services.a = await connect('Sandbox A');
  services.b = await connect('Sandbox B');
  services.gone = await connect('Sandbox gone');
  await setUpPassword(page, h.base, admin);
  await signInWithPassword(page, admin.email);
  await enrollAuthenticator(page);
  await heading(page, 'Overview');
  await page.waitForLoadState('networkidle');
});
afterAll(async () => h?.close());

const ruleForm = () => page.locator('form', { has: page.getByRole('heading', { name: 'New rule' }) });

describe('happy', () => {
  it('creates a success-rate rule and a least-cost rule through the form, and the API stores their fields', async () => {
    await openConsolePage(page, h.base, '/routing', 'Routing');
    const form = ruleForm();
    await form.getByLabel('Description').fill('EUR by success rate');
    await form.getByLabel('Sandbox A').check();
    await form.getByLabel('Sandbox B').check();
    // Static: no parameter is offered.
    expect(await form.getByLabel('Payments needed before a rate counts').count()).toBe(0);
    await form.getByLabel('Best success rate').check();
    await form.getByText(/recently approved the most payments like it/).waitFor();
    expect(await form.getByLabel('Success-rate margin (percentage points)').count()).toBe(0);
    await form.getByLabel('Payments needed before a rate counts').fill('0');
    await form.getByLabel('Share of payments that explore (%)').fill('60');
    await form.getByRole('button', { name: 'Create rule' }).click();
    await form.getByText('Some values are out of range: correct the fields marked below.').waitFor();
    await form.getByText('0 is out of range: enter from 1 to 100,000.').waitFor();
    await form.getByText('60 is out of range: enter from 0 to 50.').waitFor();
    expect(await form.getByLabel('Payments needed before a rate counts').getAttribute('aria-invalid')).toBe('true');
    await form.getByLabel('Payments needed before a rate counts').fill('30');
    await form.getByLabel('Counted over the last (minutes)').fill('120');
    await form.getByLabel('Share of payments that explore (%)').fill('15');
    expect(await form.getByLabel('Skip a service whose circuit breaker is open').isChecked()).toBe(true);
    await form.getByLabel('Skip a service whose circuit breaker is open').uncheck();
    expect(await form.getByLabel(/Retry with 3-D Secure/).isChecked()).toBe(false);
    await form.getByLabel(/Retry with 3-D Secure/).check();
    await form.getByRole('button', { name: 'Create rule' }).click();
    const first = page.locator('.rule').filter({ hasText: 'EUR by success rate' });
    await first.locator('.badge', { hasText: 'Best success rate' }).waitFor();
    await first.getByText(/Choose among Sandbox A, Sandbox B; .*15 % exploring; circuit breakers ignored/).waitFor();

    await form.getByLabel('Description').fill('Cheapest');
    await form.getByLabel('Least cost').check();
    expect(await form.getByLabel('Share of payments that explore (%)').count()).toBe(0);
    expect(await form.getByLabel('Success-rate margin (percentage points)').inputValue()).toBe('0.5');
    await form.getByLabel('Success-rate margin (percentage points)').fill('1.5');
    await form.getByRole('button', { name: 'Create rule' }).click();
    await page.locator('.rule').filter({ hasText: 'Cheapest' }).locator('.badge', { hasText: 'Least cost' }).waitFor();
    await h.shot(page, 'dashboard-routing-strategies');

    const stored = await h.api('GET', RULES);
    expect(stored.body.items.map((r: { description: string; outcome: unknown }) => [r.description, r.outcome])).toEqual(
      [
        [
          'EUR by success rate',
          {
            payment_service_ids: [services.a, services.b],
            strategy: 'success_rate',
            min_samples: 30,
            window_minutes: 120,
            exploration_percent: 15,
            breaker: false,
            step_up_on_soft_decline: true,
          },
        ],
        [
          'Cheapest',
          {
            payment_service_ids: [services.a, services.b],
            strategy: 'least_cost',
            min_samples: 20,
            window_minutes: 60,
            cost_margin_percent: 1.5,
            breaker: true,
            step_up_on_soft_decline: false,
          },
        ],
      ],
    );
    expect(unexpected(problems)).toEqual([]);
  });

  it("shows the API's refusal: a service deleted while the form was open", async () => {
    await openConsolePage(page, h.base, '/routing', 'Routing');
    const form = ruleForm();
    await form.getByLabel('Description').fill('Too late');
    await form.getByLabel('Sandbox gone').check();
    expect((await h.api('DELETE', `/payment-services/${services.gone}`)).status).toBe(204);
    await form.getByRole('button', { name: 'Create rule' }).click();
    await form
      .getByRole('alert')
      .getByText(`The payment service ${services.gone} (Sandbox gone) has been deleted`)
      .waitFor();
    expect((await h.api('GET', RULES)).body.items).toHaveLength(2);
    expect(problems.filter((p) => p.startsWith('400 '))).toHaveLength(1);
    expect(unexpected(problems)).toEqual([]);
  });

  it("edits a payment service's fee schedule through its page", async () => {
    await openConsolePage(page, h.base, '/payment-services', 'Payment services');
    await page.getByRole('link', { name: 'Sandbox A' }).click();
    await heading(page, 'Sandbox A');
    await page.getByText(/No fee schedule/).waitFor();
    await page.getByRole('button', { name: 'Edit fee schedule' }).click();
    await page.getByLabel('Entry 1: currency').fill('eur');
    await page.getByLabel('Entry 1: percentage of the amount').fill('1.4');
    await page.getByLabel('Entry 1: fixed fee').fill('0.25');
    await page.getByRole('button', { name: 'Add an entry' }).click();
    await page.getByLabel('Entry 2: card scheme').selectOption('visa');
    await page.getByLabel('Entry 2: card type').selectOption('debit');
    await page.getByLabel('Entry 2: percentage of the amount').fill('0.2');
    await page.getByRole('button', { name: 'Add an entry' }).click();
    await page.getByLabel('Entry 3: card scheme').selectOption('visa');
    await page.getByLabel('Entry 3: card type').selectOption('debit');
    await page.getByLabel('Entry 3: percentage of the amount').fill('0.3');
    await page.getByRole('button', { name: 'Save fee schedule' }).click();
    await page.getByText(/^Entry 3 matches the same payments as entry 2 \(scheme visa, card type debit,/).waitFor();
    // No currency on entry 2: its fixed fee needs one of its own.
    await page.getByLabel('Entry 2: fixed fee').fill('0.10');
    await page.getByLabel('Entry 3: card scheme').selectOption('amex');
    await page.getByLabel('Entry 3: card type').selectOption('');
    await page.getByLabel('Entry 3: percentage of the amount').fill('2.9');
    await page.getByRole('button', { name: 'Save fee schedule' }).click();
    await page.getByText(/^Entry 2: give the fixed fee's currency/).waitFor();
    await page.getByLabel("Entry 2: the fixed fee's currency").fill('EUR');
    await page.getByRole('button', { name: 'Save fee schedule' }).click();
    await page.getByText('The fee schedule is saved.').waitFor();
    const table = page.getByRole('table', { name: 'Fee schedule entries' });
    await table.getByRole('row', { name: /Any Any EUR Any 1\.4 % \+ €0\.25/ }).waitFor();
    await table.getByRole('row', { name: /visa debit Any Any 0\.2 % \+ €0\.10/ }).waitFor();
    await h.shot(page, 'dashboard-routing-fee-schedule');
    const stored = await h.api('GET', `/payment-services/${services.a}/fee-schedule`);
    expect(stored.body.entries).toEqual([
      {
        scheme: null,
        card_type: null,
        currency: 'EUR',
        country: null,
        percent: '1.4',
        fixed_fee: { amount: 25, currency: 'EUR' },
      },
      {
        scheme: 'visa',
        card_type: 'debit',
        currency: null,
        country: null,
        percent: '0.2',
        fixed_fee: { amount: 10, currency: 'EUR' },
      },
      { scheme: 'amex', card_type: null, currency: null, country: null, percent: '2.9', fixed_fee: null },
    ]);
    expect(stored.body.updated_at).not.toBeNull();
    expect(unexpected(problems)).toEqual([]);
  });
});

describe('security', () => {
  it('shows a system-support user the strategies and the fee schedule, with no control to change them', async () => {
    const other = await h.openPage(1280);
    await setUpPassword(other.page, h.base, support);
    await signInWithPassword(other.page, support.email);
    await heading(other.page, 'Overview');
    await openConsolePage(other.page, h.base, '/routing', 'Routing');
    await other.page.locator('.rule .badge', { hasText: 'Least cost' }).waitFor();
    expect(await other.page.getByRole('heading', { name: 'New rule' }).count()).toBe(0);
    await openConsolePage(other.page, h.base, `/payment-services/${services.a}`, 'Sandbox A');
    await other.page.getByRole('table', { name: 'Fee schedule entries' }).getByText('2.9 %').waitFor();
    expect(await other.page.getByRole('button', { name: 'Edit fee schedule' }).count()).toBe(0);
    const refused = await other.page.evaluate(async (id) => {
      const session = await (await fetch('/dashboard/api/session')).json();
      const res = await fetch(`/payment-services/${id}/fee-schedule`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', 'x-csrf-token': session.csrf_token },
        body: JSON.stringify({ entries: [] }),
      });
      return res.status;
    }, services.a);
    expect(refused).toBe(403);
    expect(unexpected(other.problems).filter((p) => !p.startsWith('403 '))).toEqual([]);
    await other.page.context().close();
  });
});

describe('accessibility and small screens', () => {
  it('fits the rule form with its strategy fields and the fee schedule form on a 390 px phone, with no serious accessibility problem', async () => {
    const phone = await h.browser.newContext({
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
      storageState: await page.context().storageState(),
    });
    const small = await phone.newPage();
    const found: string[] = [];
    const check = async (name: string) => {
      expect(await small.evaluate(() => document.documentElement.scrollWidth), name).toBeLessThanOrEqual(390);
      await h.shot(small, `dashboard-routing-${name}-390px`);
      found.push(...(await axeProblems(small)).map((p) => `${name}: ${p}`));
    };
    await openConsolePage(small, h.base, '/routing', 'Routing');
    await small.getByLabel('Least cost').check();
    await small.getByLabel('Success-rate margin (percentage points)').fill('200');
    await small.getByRole('button', { name: 'Create rule' }).click();
    await small.getByText('200 is out of range: enter from 0 to 100.').waitFor();
    await check('rules');
    await openConsolePage(small, h.base, `/payment-services/${services.a}`, 'Sandbox A');
    await check('service');
    await small.getByRole('button', { name: 'Edit fee schedule' }).click();
    await small.getByLabel('Entry 3: percentage of the amount').waitFor();
    await check('fee-schedule-form');
    expect(found).toEqual([]);
    await phone.close();
  });
});
