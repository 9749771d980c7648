import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { ROOT, runSvc, startServer, type RunningServer } from './spawn-server.ts';

/**
 * A real browser against a real server for `npm run test:browser`: Debian's chromium driven by
 * playwright-core, `svc serve` listening on PGlite in a fresh data directory, and a bearer token for
 * the API. Screenshots go to test/browser/screenshots/ (ignored by git).
 */

const SHOTS = path.join(ROOT, 'test', 'browser', 'screenshots');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
    probe.once('error', reject);
  });
}

export interface BrowserHarness {
  base: string;
  browser: Browser;
  /** An API call with the bearer token, acting on `merchantAccountId` when given (else the default account). */
  api(method: string, url: string, body?: unknown, merchantAccountId?: string): Promise<{ status: number; body: any }>;
  /** A page that records CSP violations, script errors and failed loads in `problems`. */
  openPage(width?: number): Promise<{ page: Page; problems: string[] }>;
  shot(page: Page, name: string): Promise<unknown>;
  close(): Promise<void>;
}

/**
 * `browserArgs`: more chromium flags, e.g. `--host-resolver-rules` to reach the server by another host name.
 * `beforeStart`: work on the data directory before the server opens it (the embedded database
 * allows one process at a time), given the server's environment, which it may add settings to.
 * `env`: more settings of the server (e.g. `SETTLEMENT_DELAY_SECONDS`).
 */
export async function startBrowserHarness(
  options: {
    browserArgs?: string[];
    beforeStart?: (env: Record<string, string>) => Promise<void>;
    env?: Record<string, string>;
  } = {},
): Promise<BrowserHarness> {
  fs.mkdirSync(SHOTS, { recursive: true });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-browser-'));
  const port = await freePort();
  const env: Record<string, string> = {
    ...options.env,
    DATA_DIR: dataDir,
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
  };
  await options.beforeStart?.(env);
  const server: RunningServer = await startServer(env);
  const base = server.baseUrl.replace('localhost', '127.0.0.1');
  const token = (
    await runSvc(['token', '--key', path.join(dataDir, 'private_key.pem')], { DATA_DIR: dataDir })
  ).stdout.trim();
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: [...ARGS, ...(options.browserArgs ?? [])] });
  return {
    base,
    browser,
    async api(method, url, body, merchantAccountId) {
      const headers = {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        ...(merchantAccountId ? { 'x-svc-merchant-account-id': merchantAccountId } : {}),
      };
      const res = await fetch(`${base}${url}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, body: res.status === 204 ? null : await res.json() };
    },
    async openPage(width = 1024) {
      const context = await browser.newContext({ viewport: { width, height: 900 } });
      const page = await context.newPage();
      const problems: string[] = [];
      // CSP violations and script errors are console errors; failed loads are checked by URL (browsers ask for /favicon.ico on their own).
      page.on('console', (message) => {
        if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
          problems.push(message.text());
      });
      page.on('response', (response) => {
        if (response.status() >= 400 && !response.url().endsWith('/favicon.ico'))
          problems.push(`${response.status()} ${response.url()}`);
      });
      page.on('pageerror', (error) => problems.push(error.message));
      return { page, problems };
    },
    shot: (page, name) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true }),
    async close() {
      await browser.close();
      await server.stop('SIGTERM');
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
