import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.ts';
import type { Deps, ReadCaches } from './context.ts';
import { openDb, type DbHandle, type OpenDbOptions } from './db/client.ts';
import { migrate } from './db/migrate.ts';
import { invalidating, type ChangeFeed, type ChangeFeedOptions } from './db/change-feed.ts';
import { ReadCache } from './db/read-cache.ts';
import { CursorCodec } from './http/cursor.ts';
import { JOBS, RECURRING } from './jobs/index.ts';
import { JobQueue } from './jobs/queue.ts';
import { resolveCheckoutSession } from './modules/checkout-sessions/checkout-sessions.service.ts';
import { KeyPairCache } from './modules/api-key-pairs/key-pair-cache.ts';
import { FlowRuleCache } from './modules/flows/rule-cache.ts';
import { RoutingStats } from './modules/routing-stats/stats-store.ts';
import { createVelocityCounters } from './modules/velocity/create-velocity-counters.ts';
import { CardTestingThrottles } from './modules/card-testing/card-testing-throttles.ts';
import { TransactionSessionTokens } from './modules/transactions/session-token.ts';
import { resolveTransactionSession } from './modules/transactions/session/transaction-session.service.ts';
import { assertKeyringOpens, loadKeyring, type Keyring } from './vault/keyring.ts';
import { masterKeyIdsInUse } from './vault/data-keys.repo.ts';
import { openInstanceSecrets } from './vault/instance-secrets.ts';
import { Vault } from './vault/vault.ts';
import { Metrics } from './observability/metrics.ts';
import { createDefaultRegistry, type ConnectorRegistry } from './connectors/registry.ts';
import { createAntiFraudRegistry } from './connectors/anti-fraud/anti-fraud-registry.ts';
import { armTestFaults } from './observability/test-faults.ts';
import { databaseLedger } from './modules/simulator-calls/simulator-calls.repo.ts';
import { breakerSettingsOf, CircuitBreakers } from './modules/circuit-breakers/circuit-breakers.ts';
import { recordTransition } from './modules/circuit-breakers/circuit-transitions.ts';
import { inBackground } from './db/session-lanes.ts';
import { AuditSealer, EMBEDDED_SEAL_BATCH } from './modules/audit-logs/audit-sealer.ts';

export interface Runtime {
  deps: Deps;
  handle: DbHandle;
  close(): Promise<void>;
}

type Log = Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;

const silentLog: Log = { info: () => undefined, warn: () => undefined, error: () => undefined } as unknown as Log;

export interface RuntimeOptions extends Partial<OpenDbOptions> {
  log?: Log;
  migrate?: boolean;
  keyring?: Keyring;
  connectors?: ConnectorRegistry;
  checkKeyring?: boolean;
  /** Reconnection and heartbeat timing of the change feed (tests). */
  changeFeed?: Omit<ChangeFeedOptions, 'log'>;
  /** The circuit breakers' clock, epoch milliseconds (tests, the routing simulation). */
  breakerClock?: () => number;
}

/** Opens the database, applies migrations and builds the dependencies shared by every process. */
export async function createRuntime(config: Config, options: RuntimeOptions = {}): Promise<Runtime> {
  const keyring = options.keyring ?? (await loadKeyring(config));
  armTestFaults(config.testFaults);
  const handle = await openDb({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: config.databasePoolSize,
    groupCommit: config.databaseGroupCommit,
    ...options,
  });
  let feed: ChangeFeed | null = null;
  try {
    if (options.migrate !== false) await migrate(handle.db);
    if (options.checkKeyring) assertKeyringOpens(keyring, await masterKeyIdsInUse(handle.db));
    const secrets = await openInstanceSecrets(handle.db, keyring);
    const metrics = new Metrics({ db: handle.db, pool: handle.pool });
    const queue = new JobQueue(
      {
        pollMs: config.jobPollMs,
        concurrency: config.jobConcurrency,
        networkConcurrency: config.jobNetworkConcurrency,
        recurring: RECURRING,
        observer: metrics,
      },
      JOBS,
      options.log ?? silentLog,
    );
    const readCaches: ReadCaches = {
      paymentServices: new ReadCache(),
      webhookSubscriptions: new ReadCache(),
      // Bounded by accounts: each holds one account's whole list (about 150 bytes an entry).
      blocklists: new ReadCache({ maxEntries: 1_000 }),
      // One small row (or null) per account.
      antiFraudServices: new ReadCache({ maxEntries: 10_000 }),
    };
    // After the migrations: the feed listens for the notifications their triggers send.
    feed = await handle.openChangeFeed(
      invalidating({
        payment_services: readCaches.paymentServices,
        webhook_subscriptions: readCaches.webhookSubscriptions,
        blocklist_entries: readCaches.blocklists,
        anti_fraud_services: readCaches.antiFraudServices,
      }),
      { ...options.changeFeed, log: options.log ?? silentLog },
    );
    const connectors = (
      options.connectors ??
      createDefaultRegistry(
        { stripeApiBaseUrl: config.stripeApiBaseUrl, baseUrls: config.connectorBaseUrls },
        databaseLedger(handle.db),
      )
    ).observe((call) => metrics.connectorCall(call));
    // Production: the built-in simulators answer nothing (docs/production.md).
    if (config.environment === 'production') connectors.withholdSandbox();
    const antiFraud = createAntiFraudRegistry({ baseUrls: config.connectorBaseUrls });
    // Production: the sandbox anti-fraud service decides nothing (decision 0139).
    if (config.environment === 'production') antiFraud.withholdSandbox();
    const routingStats = new RoutingStats(handle.db, { log: options.log ?? silentLog });
    // Background work waits behind requests for PGlite's one session (src/db/session-lanes.ts).
    inBackground(() => routingStats.start());
    // Embedded PGlite: this process alone can open the data directory, so it alone writes the counts (decisions 0142, 0146).
    const velocity = createVelocityCounters(handle.db, {
      soleWriter: handle.kind === 'pglite',
      log: options.log ?? silentLog,
    });
    inBackground(() => velocity.start());
    const auditSealer = new AuditSealer(handle.db, {
      log: options.log ?? silentLog,
      ...(handle.kind === 'pglite' ? { vacuumQueueMs: 60_000, batch: EMBEDDED_SEAL_BATCH } : {}),
    });
    inBackground(() => auditSealer.start());
    const deps: Deps = {
      config,
      db: handle.db,
      dbKind: handle.kind,
      queue,
      keyPairs: new KeyPairCache(handle.db),
      flowRules: new FlowRuleCache(handle.db),
      routingStats,
      velocity,
      cardTesting: new CardTestingThrottles(),
      readCaches,
      cursors: new CursorCodec(secrets.cursor_secret),
      keyring,
      vault: new Vault(keyring, { cacheSeconds: config.vaultDataKeyCacheSeconds }),
      resolveCheckoutSession,
      sessionTokens: new TransactionSessionTokens(secrets.transaction_session_secret),
      resolveTransactionSession,
      connectors,
      antiFraud,
      metrics,
      breakers: new CircuitBreakers(
        handle.db,
        breakerSettingsOf(config),
        metrics.registry,
        options.log ?? silentLog,
        options.breakerClock,
      ),
      auditSealer,
    };
    inBackground(() => deps.breakers.start((tx, transition) => recordTransition(tx, deps, transition)));
    return {
      deps,
      handle,
      async close() {
        await queue.stop();
        // The outcomes of the last second are written before the database closes.
        await deps.routingStats.close();
        await deps.velocity.close();
        await deps.breakers.close();
        // Last: the entries of the last requests, jobs and transitions are linked before the database closes.
        await deps.auditSealer.close();
        await feed?.close();
        await handle.close();
      },
    };
  } catch (error) {
    await feed?.close().catch(() => undefined);
    await handle.close().catch(() => undefined);
    throw error;
  }
}
