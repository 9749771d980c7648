import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { usersCommand } from '../../src/cli/users.ts';
import { loadConfig } from '../../src/config.ts';
import { createRuntime } from '../../src/deps.ts';
import { PASSWORD, totpCode } from './dashboard.ts';

/**
 * The dashboard console in a real browser (test/browser/dashboard.browser.test.ts): users created
 * the way an operator does (`svc users create`'s code, on the data directory before the server
 * opens it: the embedded database allows one process at a time), then set up and signed in
 * through the console's pages.
 */

export interface ConsoleUser {
  email: string;
  roles: string[];
  /** The token of the set-up link `svc users create` printed. */
  token: string;
}

/** Runs `svc users create` for each user on the server's data directory; fills in their set-up tokens. */
export function createUsersBeforeStart(users: Array<Omit<ConsoleUser, 'token'>>): {
  users: ConsoleUser[];
  beforeStart: (env: Record<string, string>) => Promise<void>;
} {
  const created: ConsoleUser[] = users.map((u) => ({ ...u, token: '' }));
  return {
    users: created,
    async beforeStart(env) {
      const runtime = await createRuntime(loadConfig({ ...env, LOG_LEVEL: 'warn' }));
      try {
        for (const user of created) {
          const lines: string[] = [];
          const code = await usersCommand(
            runtime.deps,
            ['create', '--email', user.email, ...user.roles.flatMap((r) => ['--role', r])],
            (line) => lines.push(line),
          );
          expect(code, lines.join('\n')).toBe(0);
          const link = lines.find((line) => line.includes('/dashboard/setup?token='))!;
          user.token = new URL(link).searchParams.get('token')!;
        }
      } finally {
        await runtime.close();
      }
    },
  };
}

/** The set-up page: chooses the password; lands on the sign-in page with the address filled in. */
export async function setUpPassword(page: Page, base: string, user: ConsoleUser): Promise<void> {
  await page.goto(`${base}/dashboard/setup?token=${user.token}`);
  await page.getByLabel('New password').fill(PASSWORD);
  await page.getByLabel('The same password again').fill(PASSWORD);
  await page.getByRole('button', { name: 'Set password' }).click();
  await page.getByRole('heading', { name: 'Password set' }).waitFor();
  await page.getByRole('button', { name: 'Sign in' }).click();
  expect(await page.getByLabel('E-mail address').inputValue()).toBe(user.email);
}

export async function signInWithPassword(page: Page, email: string): Promise<void> {
  await page.getByLabel('E-mail address').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** The enrolment page an administrator reaches at its first sign-in: reads the secret, confirms a code. */
export async function enrollAuthenticator(page: Page): Promise<string> {
  await page.getByRole('heading', { name: 'Set up your authenticator app' }).waitFor();
  const secret = (await page.getByTestId('totp-secret').textContent())!.trim();
  expect(await page.getByTestId('totp-uri').textContent()).toMatch(/^otpauth:\/\/totp\//);
  await page.getByLabel('6-digit code from your authenticator app').fill(await totpCode(secret));
  await page.getByRole('button', { name: 'Confirm' }).click();
  return secret;
}

/** The page's main heading, once shown. */
export async function heading(page: Page, name: string | RegExp): Promise<void> {
  await page.getByRole('heading', { level: 1, name }).waitFor();
}

/** Opens a console page by its path and waits for its heading and for its lists to load. */
export async function openConsolePage(page: Page, base: string, path: string, title: string | RegExp): Promise<void> {
  await page.goto(`${base}/dashboard${path}`);
  await heading(page, title);
  await page
    .getByText('Loading…')
    .first()
    .waitFor({ state: 'detached', timeout: 15_000 })
    .catch(() => undefined);
}

/** Serious and critical accessibility violations (axe-core), as "rule: target" lines. */
export async function axeProblems(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page: page as never }).analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${n.target.join(' ')}`));
}

/**
 * The page problems a test did not expect: the console asks for the session when it opens, and
 * signed out that answer is a 401 (expected); `alsoExpected` names a test's own.
 */
export const unexpectedProblems = (problems: string[], alsoExpected: (problem: string) => boolean = () => false) =>
  problems.filter((p) => !/^401 \S+\/dashboard\/api\/session$/.test(p) && !alsoExpected(p));
