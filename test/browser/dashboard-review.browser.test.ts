import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANTI_FRAUD_REVIEW_CARD } from '../../src/connectors/anti-fraud/mock-anti-fraud.ts';
import { startBrowserHarness, type BrowserHarness } from '../helpers/browser.ts';
import {
  createUsersBeforeStart,
  heading,
  openConsolePage,
  setUpPassword,
  signInWithPassword,
  unexpectedProblems,
} from '../helpers/dashboard-browser.ts';

/**
 * Manual anti-fraud review in the console (docs/risk.md, "Manual review"): a transaction the
 * sandbox's anti-fraud service sent to review (its review card) shows a "Manual review" card with
 * Approve and Decline, each confirmed first, to a user whose role writes transactions (customer
 * support); the capture is not offered while it is held. Approving captures an intent `capture`
 * transaction, declining voids one; both are audited under the user. An analyst (view only) sees the
 * review pending and no control.
 */

const { users, beforeStart } = createUsersBeforeStart([
  { email: 'support@example.com', roles: ['customer-support'] },
  { email: 'analyst@example.com', roles: ['analyst'] },
]);
const [support, analyst] = users as [(typeof users)[0], (typeof users)[0]];
const unexpected = (problems: string[]) => unexpectedProblems(problems);

let h: BrowserHarness;
let page: Page;
let problems: string[];

async function held(amount: number): Promise<string> {
  const res = await h.api('POST', '/transactions', {
    amount,
    currency: 'EUR',
    country: 'DE',
    intent: 'capture',
    payment_method: { method: 'card', number: ANTI_FRAUD_REVIEW_CARD, expiration_date: '12/40', security_code: '123' },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect(res.body).toMatchObject({ status: 'authorization_succeeded', pending_review: true });
  return res.body.id;
}

beforeAll(async () => {
  h = await startBrowserHarness({ beforeStart });
  ({ page, problems } = await h.openPage(1280));
  const service = await h.api('POST', '/payment-services', {
    display_name: 'Sandbox cards',
    payment_service_definition_id: 'mock-card',
    fields: [{ key: 'merchant_id', value: 'm-review' }],
    accepted_currencies: ['EUR'],
    accepted_countries: ['DE'],
  });
  expect(service.status, JSON.stringify(service.body)).toBe(201);
  await setUpPassword(page, h.base, support);
  await signInWithPassword(page, support.email);
  await heading(page, 'Overview');
  await page.waitForLoadState('networkidle');
});
afterAll(async () => h?.close());

const reviewCard = (p: Page) => p.locator('section', { has: p.getByRole('heading', { name: 'Manual review' }) });

async function auditedBy(id: string): Promise<Array<{ action: string; email: string | null }>> {
  const audit = await h.api('GET', '/audit-logs?limit=100');
  return audit.body.items
    .filter((i: { resource: { id: string } }) => i.resource.id === id)
    .map((i: { action: string; user: { email_address: string | null } }) => ({
      action: i.action,
      email: i.user.email_address,
    }));
}

describe('happy', () => {
  it('approves a held capture: confirmed first, then captured, and audited under the user', async () => {
    const id = await held(2500);
    await openConsolePage(page, h.base, `/transactions/${id}`, /€25\.00/);
    await page.getByText('review · pending review').waitFor();
    // Held: no capture is offered, the void is.
    expect(await page.getByRole('button', { name: 'Capture', exact: true }).count()).toBe(0);
    await page.getByRole('button', { name: 'Void', exact: true }).waitFor();
    await reviewCard(page).getByRole('button', { name: 'Approve' }).click();
    await page.getByText('Approve and capture €25.00?').waitFor();
    await reviewCard(page).getByRole('button', { name: 'Confirm' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /^Approved: / })
      .waitFor();
    await heading(page, /capture succeeded/);
    expect(await reviewCard(page).count()).toBe(0);
    await h.shot(page, 'dashboard-review-approved');
    const read = await h.api('GET', `/transactions/${id}`);
    expect(read.body).toMatchObject({ status: 'capture_succeeded', pending_review: false, captured_amount: 2500 });
    expect(await auditedBy(id)).toEqual(
      expect.arrayContaining([
        { action: 'updated', email: support.email },
        { action: 'captured', email: support.email },
      ]),
    );
    expect(unexpected(problems)).toEqual([]);
  });

  it('declines a held capture: the cancel button keeps it, the confirmation voids it', async () => {
    const id = await held(1800);
    await openConsolePage(page, h.base, `/transactions/${id}`, /€18\.00/);
    await reviewCard(page).getByRole('button', { name: 'Decline' }).click();
    await page.getByText('Decline and void this authorization?').waitFor();
    await reviewCard(page).getByRole('button', { name: 'Cancel' }).click();
    expect((await h.api('GET', `/transactions/${id}`)).body.pending_review).toBe(true);
    await reviewCard(page).getByRole('button', { name: 'Decline' }).click();
    await reviewCard(page).getByRole('button', { name: 'Confirm' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /^Declined: / })
      .waitFor();
    await heading(page, /authorization voided/);
    const read = await h.api('GET', `/transactions/${id}`);
    expect(read.body).toMatchObject({ status: 'authorization_voided', pending_review: false, captured_amount: 0 });
    expect(await auditedBy(id)).toEqual(
      expect.arrayContaining([
        { action: 'updated', email: support.email },
        { action: 'voided', email: support.email },
      ]),
    );
    expect(unexpected(problems)).toEqual([]);
  });
});

describe('security', () => {
  it('an analyst (view only) sees the review pending and no control to decide it', async () => {
    const id = await held(1200);
    const other = await h.openPage(1280);
    await setUpPassword(other.page, h.base, analyst);
    await signInWithPassword(other.page, analyst.email);
    await heading(other.page, 'Overview');
    await openConsolePage(other.page, h.base, `/transactions/${id}`, /€12\.00/);
    await other.page.getByText('review · pending review').waitFor();
    expect(await reviewCard(other.page).count()).toBe(0);
    expect(await other.page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    expect(unexpected(other.problems)).toEqual([]);
    await other.page.context().close();
  });
});
