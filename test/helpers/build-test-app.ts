import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type {
  FastifyContextConfig,
  FastifyInstance,
  FastifySchema,
  InjectOptions,
  LightMyRequestResponse,
} from 'fastify';
import pg from 'pg';
import { inject } from 'vitest';
import { buildApp, type BuildAppOptions } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import type { Deps } from '../../src/context.ts';
import { createRuntime, type Runtime, type RuntimeOptions } from '../../src/deps.ts';
import { uuidv7 } from '../../src/lib/ids.ts';
import { reuseCompiledSchemas } from './compile-cache.ts';
import { createMerchantAccount } from './factories.ts';
import { createTestKeyPair, type TestKeyPair } from './tokens.ts';

export interface TestApp {
  app: FastifyInstance;
  deps: Deps;
  runtime: Runtime;
  config: Config;
  /** Every route the app registered (method, url, whether it needs no token). */
  registeredRoutes: Array<{
    method: string;
    url: string;
    public: boolean;
    config: FastifyContextConfig;
    schema: FastifySchema | undefined;
  }>;
  /** Every log line the app wrote, as text. */
  logs: string[];
  /** A full-access key pair limited to no merchant account, and a token factory for it. */
  keys: TestKeyPair;
  /** The PostgreSQL schema of the test file's database (null on PGlite). */
  schema: string | null;
  /** Sends a request with a bearer token (all scopes unless `scopes` is given). */
  request(
    options: InjectOptions & { scopes?: string[]; merchantAccountId?: string; token?: string | null },
  ): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export const usesPostgres = (): boolean => Boolean(process.env.TEST_DATABASE_URL);

export interface TestRuntimeOptions {
  /** PostgreSQL only: open another runtime (another "process") on this existing schema; it stays when disposed. */
  joinSchema?: string;
  runtime?: Pick<RuntimeOptions, 'changeFeed' | 'keyring' | 'connectors' | 'breakerClock'>;
}

/** A fresh database for one test file: a PGlite loaded from the migrated dump, or a new PostgreSQL schema. */
export async function openTestRuntime(
  env: Record<string, string> = {},
  options: TestRuntimeOptions = {},
): Promise<{ runtime: Runtime; config: Config; schema: string | null; dispose(): Promise<void> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-data-'));
  const url = process.env.TEST_DATABASE_URL;
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'info', ...env, ...(url ? { DATABASE_URL: url } : {}) });
  if (url) {
    const joined = options.joinSchema;
    const schema = joined ?? `t_${uuidv7().replace(/-/g, '').slice(-16)}`;
    if (!joined) {
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      await admin.query(`CREATE SCHEMA ${schema}`);
      await admin.end();
    }
    // Small pools keep the parallel test files under the server's max_connections.
    const runtime = await createRuntime(config, {
      ...options.runtime,
      schema,
      ...(env.DATABASE_POOL_SIZE ? {} : { poolSize: 5 }),
    });
    return {
      runtime,
      config,
      schema,
      async dispose() {
        await runtime.close();
        if (!joined) {
          const client = new pg.Client({ connectionString: url });
          await client.connect();
          await client.query(`DROP SCHEMA ${schema} CASCADE`);
          await client.end();
        }
        fs.rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  if (options.joinSchema) throw new Error('a second runtime on one database needs PostgreSQL (TEST_DATABASE_URL)');
  const dumpFile = inject('pgliteDump');
  const dump = new Blob([fs.readFileSync(dumpFile)]);
  const runtime = await createRuntime(config, { ...options.runtime, pgliteDump: dump, inMemory: true });
  return {
    runtime,
    config,
    schema: null,
    async dispose() {
      await runtime.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface BuildTestAppOptions {
  plugins?: BuildAppOptions['plugins'];
  /**
   * PostgreSQL only: a second app on the database of this one, as another server process would be
   * (its own runtime: pool, caches, change feed, queue). It shares the merchant accounts and key pair.
   */
  peerOf?: TestApp;
  runtime?: TestRuntimeOptions['runtime'];
  /** Where the app finds the built dashboard console (default dist/console). */
  consoleDir?: string;
}

export async function buildTestApp(
  env: Record<string, string> = {},
  options: BuildTestAppOptions = {},
): Promise<TestApp> {
  const peerOf = options.peerOf;
  if (peerOf && !peerOf.schema) throw new Error('a second app on one database needs PostgreSQL (TEST_DATABASE_URL)');
  // Processes on one database share the vault master key (each data directory would make its own).
  const runtimeOptions = peerOf ? { ...options.runtime, keyring: peerOf.deps.keyring } : options.runtime;
  const { runtime, config, schema, dispose } = await openTestRuntime(env, {
    runtime: runtimeOptions,
    ...(peerOf?.schema ? { joinSchema: peerOf.schema } : {}),
  });
  const logs: string[] = [];
  const logStream = new Writable({
    write(chunk, _encoding, done) {
      logs.push(chunk.toString());
      done();
    },
  });
  const registeredRoutes: TestApp['registeredRoutes'] = [];
  const app = await buildApp(runtime.deps, {
    logStream,
    plugins: options.plugins ?? [],
    ...(options.consoleDir ? { consoleDir: options.consoleDir } : {}),
    onRoute(this: FastifyInstance, route) {
      reuseCompiledSchemas(this, route);
      for (const method of [route.method].flat())
        registeredRoutes.push({
          method,
          url: route.url,
          public: !route.config?.scope && (route.config?.credential ?? 'bearer') === 'bearer',
          config: route.config ?? {},
          schema: route.schema,
        });
    },
  });
  // As on a bootstrapped instance, requests without a merchant account header act on `default`.
  if (!peerOf) await createMerchantAccount(runtime.deps, { id: 'default', display_name: 'Default' });
  const keys = peerOf ? peerOf.keys : await createTestKeyPair(runtime.deps);
  return {
    app,
    deps: runtime.deps,
    runtime,
    config,
    logs,
    registeredRoutes,
    keys,
    schema,
    async request(options) {
      const { scopes, merchantAccountId, token, ...rest } = options;
      const headers: Record<string, string> = { ...(rest.headers as Record<string, string>) };
      const bearer = token === undefined ? await keys.token({ scopes }) : token;
      if (bearer !== null) headers.authorization = `Bearer ${bearer}`;
      if (merchantAccountId) headers['x-svc-merchant-account-id'] = merchantAccountId;
      return app.inject({ ...rest, headers });
    },
    async close() {
      await app.close();
      await dispose();
    },
  };
}
