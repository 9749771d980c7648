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
  type ConsoleUser,
  unexpectedProblems,
} from '../helpers/dashboard-browser.ts';

/**
 * Users and roles in the console (docs/dashboard.md, "Managing users"): an administrator invites a
 * customer-support user through the Users page; the user opens the set-up link in another browser,
 * chooses a password and signs in; it sees no unmasked personal data and no control its role lacks,
 * while the API refuses such a call; the administrator adds pii-viewer and the user sees the
 * buyer's e-mail address; the administrator disables the user, whose next request is refused.
 */

const { users, beforeStart } = createUsersBeforeStart([{ email: 'admin@example.com', roles: ['administrator'] }]);
const admin = users[0]!;
const SUPPORT_EMAIL = 'support.invited@example.com';
const BUYER_EMAIL = 'grace@example.com';
/** The 403 the test provokes is expected too. */
const unexpected = (problems: string[]) => unexpectedProblems(problems, (p) => p.startsWith('403 '));

let h: BrowserHarness;
let page: Page;
let problems: string[];
let buyerId = '';

beforeAll(async () => {
  h = await startBrowserHarness({ beforeStart });
  ({ page, problems } = await h.openPage(1280));
  await setUpPassword(page, h.base, admin);
  await signInWithPassword(page, admin.email);
  await enrollAuthenticator(page);
  await heading(page, 'Overview');
  await page.waitForLoadState('networkidle');
  const buyer = await h.api('POST', '/buyers', {
    display_name: 'Grace',
    external_identifier: 'buyer-grace',
    billing_details: { first_name: 'Grace', last_name: 'Hopper', email_address: BUYER_EMAIL },
  });
  expect(buyer.status, JSON.stringify(buyer.body)).toBe(201);
  buyerId = buyer.body.id;
});
afterAll(async () => h?.close());

async function saveRoles(labels: RegExp[]): Promise<void> {
  await openConsolePage(page, h.base, '/users', 'Users and roles');
  await page.getByRole('link', { name: 'support.invited' }).click();
  await heading(page, 'support.invited');
  const form = page.locator('form', { has: page.getByRole('heading', { name: /^Roles in / }) });
  for (const label of labels) await form.getByLabel(label).check();
  await form.getByRole('button', { name: 'Save roles' }).click();
  await page.getByText('The roles are saved.').waitFor();
}

describe('security', () => {
  it('invites a customer-support user whose role shows no personal data and no control it lacks, adds pii-viewer, then disables it', async () => {
    await openConsolePage(page, h.base, '/users', 'Users and roles');
    const invite = page.locator('form', { has: page.getByRole('heading', { name: 'Invite a user' }) });
    await invite.getByLabel('E-mail address', { exact: true }).fill(SUPPORT_EMAIL);
    // An add-on is offered only with its base role.
    expect(await invite.getByLabel(/^PII viewer/).isDisabled()).toBe(true);
    await invite.getByLabel('Customer support', { exact: true }).check();
    expect(await invite.getByLabel(/^PII viewer/).isDisabled()).toBe(false);
    await invite.getByRole('button', { name: 'Invite' }).click();
    const link = await page.getByTestId('setup-url').inputValue();
    expect(link).toMatch(/\/dashboard\/setup\?token=/);
    await page.getByRole('button', { name: 'Copy link' }).waitFor();
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.getByTestId('setup-url').count()).toBe(0);
    await page.getByRole('cell', { name: SUPPORT_EMAIL }).waitFor();
    await h.shot(page, 'dashboard-users-invited');
    expect(await axeProblems(page)).toEqual([]);

    // The invited user, in another browser: the set-up link, a password, a sign-in.
    const other = await h.openPage(1280);
    const invited: ConsoleUser = {
      email: SUPPORT_EMAIL,
      roles: ['customer-support'],
      token: new URL(link).searchParams.get('token')!,
    };
    await setUpPassword(other.page, h.base, invited);
    await signInWithPassword(other.page, SUPPORT_EMAIL);
    await heading(other.page, 'Overview');
    await openConsolePage(other.page, h.base, `/buyers/${buyerId}`, 'Grace');
    await other.page.getByText('buyer-grace').waitFor();
    expect(await other.page.content()).not.toContain(BUYER_EMAIL);
    // The Users page shows the role catalogue, but no user list and no invitation form.
    await openConsolePage(other.page, h.base, '/users', 'Users and roles');
    await other.page.getByRole('heading', { name: 'Roles', exact: true }).waitFor();
    expect(await other.page.getByRole('heading', { name: 'Invite a user' }).count()).toBe(0);
    expect(await other.page.getByRole('heading', { name: 'Users', exact: true }).count()).toBe(0);
    const refused = await other.page.evaluate(async () => {
      const session = await (await fetch('/dashboard/api/session')).json();
      const res = await fetch('/users', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': session.csrf_token },
        body: JSON.stringify({ email_address: 'friend@example.com', roles: [] }),
      });
      return res.status;
    });
    expect(refused).toBe(403);

    // pii-viewer added by the administrator: the next page the user opens shows the e-mail address.
    await saveRoles([/^PII viewer/]);
    await openConsolePage(other.page, h.base, `/buyers/${buyerId}`, 'Grace');
    await other.page.getByText(BUYER_EMAIL).waitFor();

    // Disabled: the user's next request is refused and the console returns to sign-in.
    await page.getByRole('button', { name: 'Disable user' }).click();
    await page.getByRole('button', { name: 'Disable', exact: true }).click();
    await page.getByText('The user is disabled.').waitFor();
    await other.page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Transactions' }).click();
    await other.page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(unexpected(other.problems).filter((p) => !p.startsWith('401 '))).toEqual([]);
    await other.page.context().close();
    expect(unexpected(problems)).toEqual([]);
  });

  it("fits the Users page and a user's page on a 390 px phone, with no serious accessibility problem", async () => {
    const phone = await h.browser.newContext({
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
      storageState: await page.context().storageState(),
    });
    const small = await phone.newPage();
    await openConsolePage(small, h.base, '/users', 'Users and roles');
    expect(await small.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await small.getByRole('link', { name: 'support.invited' }).click();
    await heading(small, 'support.invited');
    expect(await axeProblems(small)).toEqual([]);
    expect(await small.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await h.shot(small, 'dashboard-user-390');
    await phone.close();
  });
});
