import type { CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserHarness, type BrowserHarness } from '../helpers/browser.ts';
import {
  axeProblems,
  createUsersBeforeStart,
  heading,
  setUpPassword,
  signInWithPassword,
  unexpectedProblems,
} from '../helpers/dashboard-browser.ts';

/**
 * Passkeys in the console (docs/dashboard.md, "Passkeys") with Chromium's virtual authenticator
 * (DevTools protocol, WebAuthn domain): an administrator's first sign-in enrols a passkey instead
 * of an authenticator app; it signs out and signs in with password and passkey. The console is
 * opened as http://localhost: WebAuthn needs a secure context and a host name for its relying
 * party id (Chromium refuses IP addresses), and the sandbox takes the relying party from the
 * request's host.
 */

const { users, beforeStart } = createUsersBeforeStart([{ email: 'keyholder@example.com', roles: ['administrator'] }]);
const admin = users[0]!;
const unexpected = (problems: string[]) => unexpectedProblems(problems);

let h: BrowserHarness;
let base: string;
let page: Page;
let problems: string[];
let cdp: CDPSession;
let authenticatorId: string;

beforeAll(async () => {
  h = await startBrowserHarness({ beforeStart });
  base = h.base.replace('127.0.0.1', 'localhost');
  ({ page, problems } = await h.openPage(1280));
  cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  ({ authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  }));
});
afterAll(async () => h?.close());

const credentials = async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials;

describe('happy', () => {
  it("enrols a passkey at an administrator's first sign-in instead of an authenticator app, then signs in with password and passkey", async () => {
    await setUpPassword(page, base, admin);
    await signInWithPassword(page, admin.email);
    await page.getByRole('heading', { name: 'Set up your authenticator app' }).waitFor();
    await page.getByRole('button', { name: 'Use a passkey instead' }).click();
    await page.getByRole('heading', { name: 'Set up a passkey' }).waitFor();
    await page.getByLabel('Passkey name').fill('Virtual key');
    await page.getByRole('button', { name: 'Create passkey' }).click();
    await heading(page, 'Overview');
    expect(await credentials()).toHaveLength(1);

    // The user menu leads to the user's own sign-in security page, which lists the passkey.
    await page.waitForLoadState('networkidle');
    await page.getByText('keyholder', { exact: true }).click();
    await page.getByRole('link', { name: 'Sign-in security' }).click();
    await heading(page, 'Sign-in security');
    await page.getByRole('cell', { name: 'Virtual key', exact: true }).waitFor();
    await h.shot(page, 'dashboard-sign-in-security');
    expect(await axeProblems(page)).toEqual([]);

    await page.getByText('keyholder', { exact: true }).click();
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await signInWithPassword(page, admin.email);
    await page.getByRole('heading', { name: 'Second factor' }).waitFor();
    // A passkey only: no code field.
    expect(await page.getByLabel('6-digit code from your authenticator app').count()).toBe(0);
    await h.shot(page, 'dashboard-sign-in-passkey');
    await page.getByRole('button', { name: 'Use a passkey' }).click();
    await heading(page, 'Overview');
    const [credential] = await credentials();
    expect(credential!.signCount).toBeGreaterThanOrEqual(1);
    expect(unexpected(problems)).toEqual([]);
  });
});
