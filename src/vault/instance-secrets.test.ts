import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildTestApp, usesPostgres, type TestApp } from '../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../test/helpers/factories.ts';
import { pathOf } from '../../test/helpers/reports.ts';
import { createTestKeyPair, type TestKeyPair } from '../../test/helpers/tokens.ts';
import { buildApp } from '../app.ts';
import { loadConfig } from '../config.ts';
import type { Deps } from '../context.ts';
import { openDb } from '../db/client.ts';
import { migrate } from '../db/migrate.ts';
import { createRuntime, type Runtime } from '../deps.ts';
import { CursorCodec } from '../http/cursor.ts';
import { uuidv7 } from '../lib/ids.ts';
import { downloadSecret, signDownload } from '../modules/reports/report-download.service.ts';
import { Keyring } from './keyring.ts';
import { rewrapDataKeys, rewrapInstanceSecrets } from './rotate.ts';

const SECRETS = ['cursor_secret', 'report_download_secret', 'transaction_session_secret'] as const;

/** The signing secret the runtime's cursor codec holds (a private field: what it signs with). */
const cursorSecretOf = (deps: Deps) => (deps.cursors as unknown as { secret: Buffer }).secret;

/** Every text form a 32-byte secret could be stored in. */
const formsOf = (secret: Buffer) => [
  secret.toString('base64'),
  secret.toString('base64').replace(/=+$/, ''),
  secret.toString('base64url'),
  secret.toString('hex'),
];

/** instance_settings as a database dump shows it: each row's text (PostgreSQL's row form). */
async function settingsText(deps: Deps): Promise<string[]> {
  const rows = await sql<{ row: string }>`SELECT t::text AS row FROM instance_settings t`.execute(deps.db);
  return rows.rows.map((r) => r.row);
}

function expectNotInClear(rows: string[], secret: Buffer, name: string): void {
  for (const row of rows)
    for (const form of formsOf(secret))
      expect(
        row.includes(form),
        `instance_settings holds the ${name} in clear, in the row of ${row.split(',')[0]})`,
      ).toBe(false);
}

/** A cursor of the buyers list, signed with `secret` (as a process holding it would sign it). */
const buyersCursor = (secret: Buffer, merchantAccountId: string) =>
  new CursorCodec(secret).encode('buyers:[null,null]', merchantAccountId, {
    direction: 'next',
    key: [new Date().toISOString(), uuidv7()],
  });

/**
 * A database that outlives the processes started on it, as the previous version left it: a
 * PostgreSQL schema, or an embedded database on disk, migrated, with `settings` stored in clear.
 */
async function previousVersionDatabase(settings: Record<string, Buffer>) {
  const url = process.env.TEST_DATABASE_URL;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-secrets-'));
  const schema = url ? `t_${uuidv7().replace(/-/g, '').slice(-16)}` : undefined;
  if (url) {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.end();
  }
  const dump = url ? undefined : new Blob([fs.readFileSync(inject('pgliteDump'))]);
  const handle = await openDb({
    databaseUrl: url ?? null,
    dataDir,
    ...(schema ? { schema, poolSize: 2 } : { pgliteDump: dump }),
  });
  await migrate(handle.db);
  for (const [key, value] of Object.entries(settings))
    await handle.db
      .insertInto('instance_settings')
      .values({ key, value: value.toString('base64') })
      .execute();
  await handle.close();
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...(url ? { DATABASE_URL: url } : {}) });
  return {
    config,
    /** Starts a process (runtime) on the database with this master key. */
    start: (keyring: Keyring): Promise<Runtime> =>
      createRuntime(config, { keyring, ...(schema ? { schema, poolSize: 2 } : {}) }),
    async drop() {
      if (url) {
        const admin = new pg.Client({ connectionString: url });
        await admin.connect();
        await admin.query(`DROP SCHEMA ${schema} CASCADE`);
        await admin.end();
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The HTTP app of a started runtime, with a key pair and a merchant account. */
async function serve(runtime: Runtime): Promise<{ app: FastifyInstance; keys: TestKeyPair; merchant: string }> {
  const app = await buildApp(runtime.deps, { logStream: new Writable({ write: (_chunk, _encoding, done) => done() }) });
  return { app, keys: await createTestKeyPair(runtime.deps), merchant: await createMerchantAccount(runtime.deps) };
}

describe('security', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => t?.close());

  it('keeps no instance secret in clear after start-up: the cursor and report download secrets are sealed', async () => {
    const rows = await settingsText(t.deps);
    expectNotInClear(rows, cursorSecretOf(t.deps), 'cursor secret');
    expectNotInClear(await settingsText(t.deps), await downloadSecret(t.deps), 'report download secret');
    // Both exist from the start, each sealed with the master key whose id is stored beside it.
    const stored = await t.deps.db
      .selectFrom('instance_settings')
      .selectAll()
      .where('key', 'in', [...SECRETS])
      .orderBy('key')
      .execute();
    expect(stored.map((row) => [row.key, row.master_key_id])).toEqual(
      SECRETS.map((key) => [key, t.deps.keyring.currentId]),
    );
    expect(stored.every((row) => row.value.startsWith('v1.'))).toBe(true);
  });
});

describe('security (a database of the previous version)', () => {
  const legacy = { cursor_secret: randomBytes(32), report_download_secret: randomBytes(32) };
  const master = new Keyring(randomBytes(32));
  let db: Awaited<ReturnType<typeof previousVersionDatabase>>;
  beforeAll(async () => {
    db = await previousVersionDatabase(legacy);
  });
  afterAll(async () => db?.drop());

  it('seals the plaintext secrets at start-up, keeping their values: a cursor and a download URL signed before still work', async () => {
    const runtime = await db.start(master);
    try {
      expectNotInClear(await settingsText(runtime.deps), legacy.cursor_secret, 'cursor secret');
      expectNotInClear(await settingsText(runtime.deps), legacy.report_download_secret, 'report download secret');
      expect(cursorSecretOf(runtime.deps)).toEqual(legacy.cursor_secret);
      expect(await downloadSecret(runtime.deps)).toEqual(legacy.report_download_secret);

      const { app, keys, merchant } = await serve(runtime);
      const headers = { authorization: `Bearer ${await keys.token()}`, 'x-svc-merchant-account-id': merchant };
      const buyer = (
        await app.inject({ method: 'POST', url: '/buyers', headers, payload: { display_name: 'Before the seal' } })
      ).json();
      const page = await app.inject({
        method: 'GET',
        url: `/buyers?cursor=${buyersCursor(legacy.cursor_secret, merchant)}`,
        headers,
      });
      expect(page.statusCode, page.body).toBe(200);
      expect(page.json().items.map((b: { id: string }) => b.id)).toEqual([buyer.id]);
      expect(
        (await app.inject({ method: 'GET', url: `/buyers?cursor=${buyersCursor(randomBytes(32), merchant)}`, headers }))
          .statusCode,
      ).toBe(400);
      // A URL signed with the old secret passes the signature check (404: no such file); a forged one is 403.
      const url = (secret: Buffer) =>
        pathOf(signDownload(runtime.deps, secret, merchant, uuidv7(), new Date(Date.now() + 60_000)));
      expect((await app.inject({ method: 'GET', url: url(legacy.report_download_secret) })).statusCode).toBe(404);
      expect((await app.inject({ method: 'GET', url: url(randomBytes(32)) })).statusCode).toBe(403);
      await app.close();
    } finally {
      await runtime.close();
    }
    // Started again: the sealed values open to the same secrets, and nothing is sealed twice.
    const again = await db.start(master);
    try {
      const rows = await again.deps.db.selectFrom('instance_settings').selectAll().orderBy('key').execute();
      expect(rows.map((row) => row.master_key_id)).toEqual(SECRETS.map(() => master.currentId));
      expect(cursorSecretOf(again.deps)).toEqual(legacy.cursor_secret);
      expect(await downloadSecret(again.deps)).toEqual(legacy.report_download_secret);
    } finally {
      await again.close();
    }
  });

  it('refuses to start a process whose master key cannot open the sealed secrets, naming VAULT_MASTER_KEY', async () => {
    await (await db.start(master)).close();
    await expect(db.start(new Keyring(randomBytes(32)))).rejects.toThrow(
      /^The instance secret cursor_secret is sealed with master key \w+, which this process does not have\. .*must use the same VAULT_MASTER_KEY/,
    );
    // A sealed value moved to another setting does not open there either.
    const runtime = await db.start(master);
    try {
      const cursor = await runtime.deps.db
        .selectFrom('instance_settings')
        .select('value')
        .where('key', '=', 'cursor_secret')
        .executeTakeFirstOrThrow();
      await runtime.deps.db
        .updateTable('instance_settings')
        .set({ value: cursor.value })
        .where('key', '=', 'report_download_secret')
        .execute();
    } finally {
      await runtime.close();
    }
    await expect(db.start(master)).rejects.toThrow(
      /report_download_secret does not open with master key \w+ \(VAULT_MASTER_KEY\)/,
    );
  });
});

describe('security (master key rotation)', () => {
  let db: Awaited<ReturnType<typeof previousVersionDatabase>>;
  beforeAll(async () => {
    db = await previousVersionDatabase({});
  });
  afterAll(async () => db?.drop());

  it('re-wraps the instance secrets under the new master key: the old key can go', async () => {
    const oldMaster = randomBytes(32);
    const newMaster = randomBytes(32);
    const first = await db.start(new Keyring(oldMaster));
    const cursorSecret = cursorSecretOf(first.deps);
    const reportSecret = await downloadSecret(first.deps);
    await first.close();

    // During the rotation: the new key is current, the old one still opens what it wrapped.
    const during = new Keyring(newMaster, [oldMaster]);
    const rotating = await db.start(during);
    try {
      await rewrapDataKeys(rotating.deps.db, during);
      expect(await rewrapInstanceSecrets(rotating.deps.db, during)).toBe(SECRETS.length);
      const rows = await rotating.deps.db.selectFrom('instance_settings').selectAll().execute();
      expect(rows.map((row) => row.master_key_id)).toEqual(SECRETS.map(() => during.currentId));
      expect(await rewrapInstanceSecrets(rotating.deps.db, during)).toBe(0);
    } finally {
      await rotating.close();
    }

    // After it: only the new key is configured, and the secrets are the same.
    const after = await db.start(new Keyring(newMaster));
    try {
      expect(cursorSecretOf(after.deps)).toEqual(cursorSecret);
      expect(await downloadSecret(after.deps)).toEqual(reportSecret);
    } finally {
      await after.close();
    }
    await expect(db.start(new Keyring(oldMaster))).rejects.toThrow(/VAULT_MASTER_KEY/);
  });
});

describe.skipIf(!usesPostgres())('security (several processes starting at once)', () => {
  const legacy = { cursor_secret: randomBytes(32) };
  let db: Awaited<ReturnType<typeof previousVersionDatabase>>;
  beforeAll(async () => {
    db = await previousVersionDatabase(legacy);
  });
  afterAll(async () => db?.drop());

  it('seals a plaintext secret and makes a missing one once: every process gets the same values', async () => {
    const master = new Keyring(randomBytes(32));
    const runtimes = await Promise.all([1, 2, 3, 4].map(() => db.start(master)));
    try {
      for (const runtime of runtimes) expect(cursorSecretOf(runtime.deps)).toEqual(legacy.cursor_secret);
      const reportSecrets = await Promise.all(runtimes.map((runtime) => downloadSecret(runtime.deps)));
      expect(new Set(reportSecrets.map((secret) => secret.toString('hex'))).size).toBe(1);
      expectNotInClear(await settingsText(runtimes[0]!.deps), legacy.cursor_secret, 'cursor secret');
      expectNotInClear(await settingsText(runtimes[0]!.deps), reportSecrets[0]!, 'report download secret');
    } finally {
      await Promise.all(runtimes.map((runtime) => runtime.close()));
    }
  });
});
