import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { mintToken } from '../../../src/cli/token.ts';
import { uuidv7 } from '../../../src/lib/ids.ts';

/** A database for real server processes: a PGlite data directory, or a fresh PostgreSQL schema. */
export interface ServerDatabase {
  kind: 'pglite' | 'postgresql';
  /** Environment for `svc serve` (and for an in-process runtime on the same data). */
  env: Record<string, string>;
  dispose(): Promise<void>;
}

export async function openServerDatabase(postgresUrl: string | undefined): Promise<ServerDatabase> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-rel-'));
  if (!postgresUrl) {
    return {
      kind: 'pglite',
      env: { DATA_DIR: dataDir },
      dispose: async () => fs.rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  const schema = `rel_${uuidv7().replace(/-/g, '').slice(-12)}`;
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const url = new URL(postgresUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    kind: 'postgresql',
    env: { DATA_DIR: dataDir, DATABASE_URL: url.toString(), DATABASE_POOL_SIZE: '5' },
    async dispose() {
      const client = new pg.Client({ connectionString: postgresUrl });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.end();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A TCP port free now, so a restarted server comes back at the same address. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A full-access token from the bootstrap key the first server wrote into DATA_DIR. */
export async function bootstrapToken(dataDir: string): Promise<string> {
  const privateKeyPem = fs.readFileSync(path.join(dataDir, 'private_key.pem'), 'utf8');
  return mintToken({ privateKeyPem, scopes: ['*.read', '*.write'], lifetimeSeconds: 3600 });
}

/** JSON over HTTP with a bearer token and the merchant account header. */
export function client(baseUrl: () => string, token: string, merchantAccountId?: string) {
  return async (method: string, route: string, body?: unknown): Promise<{ status: number; json: any }> => {
    const res = await fetch(`${baseUrl()}${route}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(merchantAccountId ? { 'x-svc-merchant-account-id': merchantAccountId } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : null };
  };
}

/** A small seeded PRNG (mulberry32): kill moments are reproducible from the seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
