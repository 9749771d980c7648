import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserHarness, type BrowserHarness } from '../helpers/browser.ts';
import { axeProblems, createUsersBeforeStart, heading } from '../helpers/dashboard-browser.ts';
import { startIdentityProvider, type TestIdentityProvider } from '../helpers/oidc-provider.ts';

/**
 * Single sign-on in Debian's chromium: the sign-in page's button, the real code flow through a
 * local OpenID Connect provider (oidc-provider), and the console signed in on the return, with
 * the roles the provider named. A refused return comes back to the sign-in page with its reason.
 */

const { beforeStart: createUsers } = createUsersBeforeStart([{ email: 'admin@example.com', roles: ['administrator'] }]);
let h: BrowserHarness;
let idp: TestIdentityProvider;

beforeAll(async () => {
  h = await startBrowserHarness({
    async beforeStart(env) {
      await createUsers(env);
      idp = await startIdentityProvider(`${env.PUBLIC_URL}/dashboard/api/sso/callback`);
      Object.assign(env, {
        DASHBOARD_OIDC_ISSUER: idp.issuer,
        DASHBOARD_OIDC_CLIENT_ID: idp.clientId,
        DASHBOARD_OIDC_CLIENT_SECRET: idp.clientSecret,
        DASHBOARD_OIDC_NAME: 'Acme ID',
      });
    },
  });
});
afterAll(async () => {
  await h?.close();
  await idp?.close();
});

describe('single sign-on', () => {
  it('signs a support agent in with the provider, with the roles it names, and back to the page asked for', async () => {
    const { page, problems } = await h.openPage(1280);
    idp.signInAs({
      sub: 'agent-1',
      email: 'agent@example.com',
      email_verified: true,
      name: 'Agent Smith',
      svc_roles: ['customer-support'],
    });
    await page.goto(`${h.base}/dashboard/transactions`);
    await page.getByRole('heading', { name: 'Sign in', exact: true }).waitFor();
    expect(await axeProblems(page)).toEqual([]);
    await h.shot(page, 'dashboard-sign-in-sso');
    await page.getByRole('link', { name: 'Sign in with Acme ID' }).click();
    await heading(page, 'Transactions');
    expect(new URL(page.url()).pathname).toBe('/dashboard/transactions');
    await page.getByText('Agent Smith').first().waitFor();
    const nav = page.getByRole('navigation', { name: 'Pages' });
    expect(await nav.getByRole('link', { name: 'API keys' }).count()).toBe(0);
    expect(problems.filter((p) => !/^401 \S+\/dashboard\/api\/session$/.test(p))).toEqual([]);
    await page.context().close();
  });

  it('says why when the provider refuses, and keeps the password form', async () => {
    const { page } = await h.openPage(390);
    idp.denyNext();
    await page.goto(`${h.base}/dashboard/`);
    await page.getByRole('link', { name: 'Sign in with Acme ID' }).click();
    await page.getByRole('alert').filter({ hasText: 'The identity provider did not sign you in' }).waitFor();
    await page.getByLabel('E-mail address').waitFor();
    await page.context().close();
  });
});
