import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands.ts';
import { mintToken } from '../../src/cli/token.ts';
import { freePort } from '../reliability/support/real-server.ts';
import { ROOT, runSvc, startServer, SVC, type RunningServer } from '../helpers/spawn-server.ts';
import { startReceiver, verifyWebhook, type Receiver } from '../helpers/webhook-receiver.ts';

/**
 * The `svc` command as a developer runs it (issue 51): piped into tee or head, asked for help, and
 * against a server listening on every interface (HOST=0.0.0.0) without PUBLIC_URL.
 */
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-cli-'));
let server: RunningServer;
let port: number;
let receiver: Receiver;
const children: ChildProcess[] = [];

beforeAll(async () => {
  port = await freePort();
  server = await startServer({
    DATA_DIR: dataDir,
    HOST: '0.0.0.0',
    PORT: String(port),
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    JOB_POLL_MS: '100',
  });
  receiver = await startReceiver('/local-app');
});

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await receiver?.close();
  await server?.stop('SIGKILL');
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const env = () => ({ DATA_DIR: dataDir });

async function api(method: string, route: string, body?: unknown) {
  const token = await mintToken({
    privateKeyPem: fs.readFileSync(path.join(dataDir, 'private_key.pem'), 'utf8'),
    scopes: ['*.read', '*.write'],
    lifetimeSeconds: 600,
  });
  return fetch(`${server.baseUrl}${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
}

async function waitFor(done: () => boolean, describe: () => string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out; output so far:\n${describe()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** `svc <args>` with stdout on a pipe the test reads until `ready` shows, then may close. */
function spawnSvc(args: string[]) {
  const child = spawn(process.execPath, [SVC, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env() },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d.toString()));
  child.stderr!.on('data', (d) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { child, exited, out: () => out, err: () => err };
}

describe('happy', () => {
  it('svc --version prints the version, and svc <command> --help the usage of every command', async () => {
    const version = await runSvc(['--version'], env());
    expect(version).toMatchObject({ code: 0, stderr: '' });
    expect(version.stdout).toMatch(/^svc \d+\.\d+\.\d+\n$/);
    for (const { name } of COMMANDS) {
      const help = await runSvc([name, '--help'], env());
      expect(help.code, name).toBe(0);
      expect(help.stdout, name).toMatch(new RegExp(`^Usage: svc ${name}\\b`));
    }
  });

  it('a payment link made on a server listening on 0.0.0.0 without PUBLIC_URL has a url that opens', async () => {
    expect(server.baseUrl).toBe(`http://127.0.0.1:${port}`);
    expect(server.output()).not.toContain('0.0.0.0');
    const created = await api('POST', '/payment-links', { amount: 1299, currency: 'USD', country: 'US' });
    expect(created.status).toBe(201);
    const { url } = (await created.json()) as { url: string };
    expect(url.startsWith(`http://127.0.0.1:${port}/pay/`), url).toBe(true);
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<form');
    const openapi = (await (await fetch(`${server.baseUrl}/openapi.json`)).json()) as {
      servers: Array<{ url: string }>;
    };
    expect(openapi.servers[0]!.url).toBe(`http://127.0.0.1:${port}`);
  });

  it('svc listen keeps one signing secret per machine (DATA_DIR/cli-listen-secret, 0600): the local app verifies the second run with the first secret', async () => {
    const secrets: string[] = [];
    for (const run of [1, 2]) {
      const listen = spawnSvc(['listen', '--url', server.baseUrl, '--forward-to', receiver.url]);
      await waitFor(
        () => /Signing secret: .*\n/.test(listen.out()),
        () => listen.out() + listen.err(),
      );
      secrets.push(/Signing secret: (\S+)/.exec(listen.out())![1]!);
      expect(listen.out()).toContain(
        `${run === 1 ? 'created in' : 'kept in'} ${path.join(dataDir, 'cli-listen-secret')}`,
      );
      if (run === 2) {
        expect((await runSvc(['trigger', 'transaction.created', '--url', server.baseUrl], env())).code).toBe(0);
        await waitFor(
          () => receiver.received.length > 0,
          () => listen.out() + listen.err(),
        );
      }
      listen.child.kill('SIGINT');
      expect(await listen.exited).toBe(0);
    }
    expect(secrets[1]).toBe(secrets[0]);
    expect(fs.statSync(path.join(dataDir, 'cli-listen-secret')).mode & 0o777).toBe(0o600);
    for (const received of receiver.received)
      expect(verifyWebhook(secrets[0]!, received.headers, received.body)).toBe(true);
  });
});

describe('errors', () => {
  it('svc listen | tee, then Ctrl-C: stdout gives EPIPE, and the subscription is still deleted, exit 0', async () => {
    const listen = spawnSvc(['listen', '--url', server.baseUrl]);
    await waitFor(
      () => /Signing secret: .*\n/.test(listen.out()),
      () => listen.out() + listen.err(),
    );
    const subscriptionId = /subscription ([0-9a-f-]{36})/.exec(listen.out())![1]!;
    expect((await api('GET', `/webhook-subscriptions/${subscriptionId}`)).status).toBe(200);
    // tee dies with the Ctrl-C: the read end of the pipe is gone when svc listen writes its goodbye.
    listen.child.stdout!.destroy();
    listen.child.kill('SIGINT');
    expect(await listen.exited).toBe(0);
    expect(listen.err()).toBe('');
    expect((await api('GET', `/webhook-subscriptions/${subscriptionId}`)).status).toBe(404);
  });

  it('svc listen whose reader goes away stops by itself at its next line and deletes its subscription', async () => {
    const listen = spawnSvc(['listen', '--url', server.baseUrl]);
    await waitFor(
      () => /Signing secret: .*\n/.test(listen.out()),
      () => listen.out() + listen.err(),
    );
    const subscriptionId = /subscription ([0-9a-f-]{36})/.exec(listen.out())![1]!;
    listen.child.stdout!.destroy();
    expect((await runSvc(['trigger', 'transaction.created', '--url', server.baseUrl], env())).code).toBe(0);
    expect(await listen.exited).toBe(0);
    expect(listen.err()).toBe('');
    expect((await api('GET', `/webhook-subscriptions/${subscriptionId}`)).status).toBe(404);
  });

  it('svc openapi | head: exits 0 without a stack trace when the reader stops reading', async () => {
    const openapi = spawnSvc(['openapi']);
    await waitFor(
      () => openapi.out().length > 0,
      () => openapi.err(),
      120_000,
    );
    openapi.child.stdout!.destroy();
    expect(await openapi.exited).toBe(0);
    expect(openapi.err()).toBe('');
  });

  it('svc trigger without a kind exits 2 with its usage on stderr', async () => {
    const result = await runSvc(['trigger', '--url', server.baseUrl], env());
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^svc trigger needs one event kind\n\nUsage: svc trigger <event kind>/);
  });

  it('svc token refuses a lifetime over the server maximum and an unknown scope, exit 1, nothing on stdout', async () => {
    const long = await runSvc(['token', '--lifetime', '200000'], env());
    expect(long).toMatchObject({ code: 1, stdout: '' });
    expect(long.stderr).toContain(
      'svc token: --lifetime 200000 is longer than the server accepts (86400 s, 24 h: TOKEN_MAX_LIFETIME_SECONDS)',
    );
    const scope = await runSvc(['token', '--scope', 'transaction.write'], env());
    expect(scope).toMatchObject({ code: 1, stdout: '' });
    expect(scope.stderr).toContain('unknown scope "transaction.write"');
    // At the maximum, what it prints the server accepts.
    const ok = await runSvc(['token', '--lifetime', '86400', '--scope', 'merchant-accounts.read'], env());
    expect(ok.code).toBe(0);
    expect(
      (await fetch(`${server.baseUrl}/merchant-accounts`, { headers: { authorization: `Bearer ${ok.stdout.trim()}` } }))
        .status,
    ).toBe(200);
  });

  it('errors that teach: a missing key file names the default key and DATA_DIR relative to the current directory; a file that is no PEM key says so', async () => {
    const missing = await runSvc(['token'], { DATA_DIR: 'no-such-dir' });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(
      `svc token: no private key file at ${path.join(ROOT, 'no-such-dir', 'private_key.pem')}.`,
    );
    expect(missing.stderr).toContain(`DATA_DIR (default ./data) is relative to the current directory (${ROOT})`);
    const elsewhere = await runSvc(['token', '--key', 'nope.pem'], env());
    expect(elsewhere.stderr).toContain(`The default key is ${path.join(dataDir, 'private_key.pem')}.`);
    fs.writeFileSync(path.join(dataDir, 'not-a-key.txt'), 'hello\n');
    const notPem = await runSvc(['token', '--key', path.join(dataDir, 'not-a-key.txt')], env());
    expect(notPem.code).toBe(1);
    expect(notPem.stderr).toContain('not-a-key.txt is not a PEM private key');
  });

  it('svc serve on a port in use says so before touching the database, and suggests PORT=0; HOST=localhost:8080 blames HOST', async () => {
    const fresh = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-cli-port-'));
    try {
      const busy = await runSvc(['serve'], { DATA_DIR: fresh, PORT: String(port) });
      expect(busy.code).toBe(1);
      expect(busy.stderr).toContain(
        `svc serve: port ${port} on 127.0.0.1 is already in use (another svc serve?): stop that process, or choose another port, e.g. PORT=${port + 1}, or PORT=0 for any free one`,
      );
      expect(fs.readdirSync(fresh)).toEqual([]);
      const host = await runSvc(['serve'], { DATA_DIR: fresh, HOST: 'localhost:8080' });
      expect(host.code).toBe(1);
      expect(host.stderr).toBe(
        'configuration error: HOST: takes no port (the port is PORT), got "localhost:8080"; set HOST=localhost PORT=8080\n',
      );
    } finally {
      fs.rmSync(fresh, { recursive: true, force: true });
    }
  });

  it('svc serve in production without PUBLIC_URL refuses to start and says what to set', async () => {
    const result = await runSvc(['serve'], {
      DATA_DIR: dataDir,
      ENVIRONMENT: 'production',
      VAULT_MASTER_KEY: randomBytes(32).toString('base64'),
      PORT: '0',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'configuration error: PUBLIC_URL: is required in production: the address buyers and clients reach this server at (e.g. https://payments.example.com)',
    );
  });
});
