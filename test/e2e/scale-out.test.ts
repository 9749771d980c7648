import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintToken } from '../../src/cli/token.ts';
import { uuidv7 } from '../../src/lib/ids.ts';
import { runSvc, startServer, type RunningServer } from '../helpers/spawn-server.ts';

const url = process.env.TEST_DATABASE_URL;

/** Two server processes on one PostgreSQL database, as users scale out. */
describe.skipIf(!url)('two server processes on one PostgreSQL database', () => {
  const schema = `e2e_${uuidv7().replace(/-/g, '').slice(-12)}`;
  const dirs = [fs.mkdtempSync(path.join(os.tmpdir(), 'svc-a-')), fs.mkdtempSync(path.join(os.tmpdir(), 'svc-b-'))];
  let databaseUrl = '';
  let a: RunningServer;
  let b: RunningServer;
  let key = '';
  // Every process on the database, the CLI's too, opens its sealed instance secrets at start.
  const masterKey = randomBytes(32).toString('base64');

  beforeAll(async () => {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.end();
    const u = new URL(url!);
    u.searchParams.set('options', `-c search_path=${schema}`);
    databaseUrl = u.toString();
    // Started together: migrations and bootstrap must each happen once. Processes on one database
    // share the vault master key (each sandbox data directory would otherwise generate its own).
    const servers = await Promise.all(
      dirs.map((dir) => startServer({ DATA_DIR: dir, DATABASE_URL: databaseUrl, VAULT_MASTER_KEY: masterKey })),
    );
    a = servers[0]!;
    b = servers[1]!;
    const keyFiles = dirs.map((dir) => path.join(dir, 'private_key.pem')).filter((file) => fs.existsSync(file));
    expect(keyFiles).toHaveLength(1);
    key = fs.readFileSync(keyFiles[0]!, 'utf8');
  });

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  const call = async (
    server: RunningServer,
    method: string,
    route: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) => {
    const token = await mintToken({ privateKeyPem: key, scopes: ['*.read', '*.write'], lifetimeSeconds: 300 });
    return fetch(`${server.baseUrl}${route}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
  };

  it('refuses a third process whose vault master key cannot open the data keys', async () => {
    // A card stored through A creates the merchant's data key under the shared master key.
    expect(
      (
        await call(a, 'POST', '/payment-methods', {
          method: 'card',
          number: '4111111111111111',
          expiration_date: '12/40',
        })
      ).status,
    ).toBe(201);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-c-'));
    try {
      const result = await runSvc(['serve'], { DATA_DIR: dir, DATABASE_URL: databaseUrl, PORT: '0' });
      expect(result.code).not.toBe(0);
      expect(result.stdout + result.stderr).toContain('must use the same VAULT_MASTER_KEY');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('serves the same data from both processes', async () => {
    const id = `shared-${uuidv7().slice(-8)}`;
    expect((await call(a, 'POST', '/merchant-accounts', { id, display_name: 'Shared' })).status).toBe(201);
    const res = await call(b, 'GET', `/merchant-accounts/${id}`);
    expect(res.status).toBe(200);
    expect((await res.json()).display_name).toBe('Shared');
  });

  it('shares idempotency keys across processes', async () => {
    const id = `idem-${uuidv7().slice(-8)}`;
    const headers = { 'idempotency-key': `k-${id}` };
    const [first, second] = await Promise.all([
      call(a, 'POST', '/merchant-accounts', { id, display_name: 'Once' }, headers),
      call(b, 'POST', '/merchant-accounts', { id, display_name: 'Once' }, headers),
    ]);
    const statuses = [first.status, second.status].sort();
    expect(statuses.every((s) => s === 201 || s === 425)).toBe(true);
    const replay = await call(b, 'POST', '/merchant-accounts', { id, display_name: 'Once' }, headers);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
  });

  it('shares cursors across processes', async () => {
    const page = await (await call(a, 'GET', '/merchant-accounts?limit=1')).json();
    expect(page.next_cursor).toBeTruthy();
    const next = await call(b, 'GET', `/merchant-accounts?limit=1&cursor=${encodeURIComponent(page.next_cursor)}`);
    expect(next.status).toBe(200);
  });

  it('a key pair revoked through one process is refused by the other within 5 seconds', async () => {
    const created = await runSvc(['keys', 'create', '--name', 'e2e'], {
      DATABASE_URL: databaseUrl,
      DATA_DIR: dirs[0]!,
      VAULT_MASTER_KEY: masterKey,
    });
    expect(created.code).toBe(0);
    const pem = created.stdout;
    const kid = /kid (\S+)\./.exec(created.stderr)![1]!;
    const token = await mintToken({ privateKeyPem: pem, scopes: ['*.read'], lifetimeSeconds: 300 });
    const get = (server: RunningServer) =>
      fetch(`${server.baseUrl}/merchant-accounts`, { headers: { authorization: `Bearer ${token}` } });
    expect((await get(a)).status).toBe(200);
    expect((await get(b)).status).toBe(200);
    expect(
      (
        await runSvc(['keys', 'revoke', kid], {
          DATABASE_URL: databaseUrl,
          DATA_DIR: dirs[0]!,
          VAULT_MASTER_KEY: masterKey,
        })
      ).code,
    ).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 5_100));
    expect((await get(a)).status).toBe(401);
    expect((await get(b)).status).toBe(401);
  });
});
