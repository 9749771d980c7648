import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.ts';
import type { Db } from './db/client.ts';
import type { Compilable } from 'kysely';
import type { Executor, Tx } from './db/transaction.ts';
import type { ReadCache } from './db/read-cache.ts';
import type { PaymentServiceRow } from './db/schema.ts';
import type { WebhookSubscriptionRow } from './db/schema-webhooks.ts';
import { withTransaction } from './db/transaction.ts';
import type { CursorCodec } from './http/cursor.ts';
import type { Keyring } from './vault/keyring.ts';
import type { Vault } from './vault/vault.ts';
import type { JOB_PAYLOADS } from './jobs/payloads.ts';
import type { JobQueue } from './jobs/queue.ts';
import type { KeyPairCache } from './modules/api-key-pairs/key-pair-cache.ts';
import type { FlowRuleCache } from './modules/flows/rule-cache.ts';
import type { BlocklistMatcher } from './modules/blocklist-entries/blocklist-matcher.ts';
import type { RoutingStats } from './modules/routing-stats/stats-store.ts';
import type { VelocityCounters } from './modules/velocity/velocity-counters.ts';
import type { CardTestingThrottles } from './modules/card-testing/card-testing-throttles.ts';
import type { TransactionSessionTokens } from './modules/transactions/session-token.ts';
import type { ConnectorRegistry } from './connectors/registry.ts';
import type { AntiFraudRegistry } from './connectors/anti-fraud/anti-fraud-registry.ts';
import type { AntiFraudServiceRow } from './db/schema-anti-fraud.ts';
import type { Metrics } from './observability/metrics.ts';
import type { CircuitBreakers } from './modules/circuit-breakers/circuit-breakers.ts';
import type { AuditSealer } from './modules/audit-logs/audit-sealer.ts';

/** What every process (HTTP server, worker, CLI) builds once and passes down. */
export interface Deps {
  config: Config;
  db: Db;
  dbKind: 'pglite' | 'postgres';
  queue: JobQueue<typeof JOB_PAYLOADS, Deps>;
  keyPairs: KeyPairCache;
  /** Flow rules per merchant account (routing, failover, decline-early, skip-3ds, payment options). */
  flowRules: FlowRuleCache;
  /** Authorization outcomes per payment service, batched to the database and shared (success-rate routing). */
  routingStats: RoutingStats;
  /** Velocity counts per key MAC, batched to the database and shared (velocity conditions of flow rules). */
  velocity: VelocityCounters;
  /** The card-testing guard's throttled sources known to this process (docs/risk.md, "Card-testing guard"). */
  cardTesting: CardTestingThrottles;
  /** Reads of the authorization hot path, per merchant account, kept until a change is committed. */
  readCaches: ReadCaches;
  /** Signs and checks pagination cursors; its secret is shared by all processes through the database. */
  cursors: CursorCodec;
  /**
   * Looks up a checkout session used as a credential (its fields endpoint). Set by the checkout
   * sessions module; without it such requests are 401.
   */
  resolveCheckoutSession?: (deps: Deps, sessionId: string) => Promise<CheckoutSessionCredential | null>;
  /** Signs and reads transaction session tokens (`session_token`); its secret is shared through the database. */
  sessionTokens: TransactionSessionTokens;
  /**
   * Looks up the transaction a session token opens (`POST /transactions/{id}/session`). Set by the
   * transactions module; without it such requests are 401.
   */
  resolveTransactionSession?: (
    deps: Deps,
    transactionId: string,
    token: string,
  ) => Promise<TransactionSessionCredential | null>;
  /** The only plaintext boundary for card data. */
  vault: Vault;
  keyring: Keyring;
  /** Payment connectors by definition id (`mock-card`, ...). */
  connectors: ConnectorRegistry;
  /** Anti-fraud connectors by definition id (`mock-anti-fraud`, `riskified-anti-fraud`; decision 0139). */
  antiFraud: AntiFraudRegistry;
  /** This process's Prometheus metrics (GET /metrics). */
  metrics: Metrics;
  /** The circuit breakers of payment services: this process's counts and cache of the shared state. */
  breakers: CircuitBreakers;
  /** Links committed audit entries into their accounts' hash chains, about a second after commit (decision 0145). */
  auditSealer: AuditSealer;
}

/**
 * Per-process caches invalidated by every committed write (src/db/read-cache.ts, change-feed.ts).
 * Only reads outside a database transaction use them: a transaction reads its own snapshot.
 */
export interface ReadCaches {
  /** Routable (active, not deleted) payment services in routing order. */
  paymentServices: ReadCache<PaymentServiceRow[]>;
  /** Active webhook subscriptions, oldest first. */
  webhookSubscriptions: ReadCache<WebhookSubscriptionRow[]>;
  /** Each merchant account's live blocklist entries, compiled for lookups (decision 0135). */
  blocklists: ReadCache<BlocklistMatcher>;
  /** Each merchant account's active anti-fraud service, or null (decision 0139). */
  antiFraudServices: ReadCache<AntiFraudServiceRow | null>;
}

export interface CheckoutSessionCredential {
  id: string;
  merchantAccountId: string;
  expiresAt: Date;
}

/** A transaction whose session token checked out: its merchant account, and until when the token is good. */
export interface TransactionSessionCredential {
  transactionId: string;
  merchantAccountId: string;
  expiresAt: Date;
}

/** Who is calling: the verified credential. */
export interface Principal {
  /**
   * `checkout-session`: a checkout session id used as the credential of its own operations;
   * `transaction-session`: a transaction's session token, the credential of its session;
   * `dashboard-user`: a dashboard user's sign-in session (the cookie), with its roles' scopes.
   */
  kind: 'api-key-pair' | 'checkout-session' | 'transaction-session' | 'dashboard-user';
  /** Id of the API key pair, or of the dashboard user (the credential owner for idempotency and audit). */
  keyPairId: string;
  /** Display name of the key pair (the actor's name in audit entries). */
  keyPairName: string;
  thumbprint: string;
  scopes: string[];
  /** Set when the key pair may act on one merchant account only (one of the limits of `accountLimit`). */
  restrictedTo: string | null;
  embed: Record<string, unknown> | null;
  /** The token's `merchant_account_id` claim: its requests act on this account only (see `accountLimit`). */
  tokenMerchantAccountId: string | null;
  tokenId: string | null;
  /** SHA-256 of the credential (base64url): the rate limit bucket of embed tokens. */
  tokenHash: string;
  expiresAt: number;
  /** The dashboard user behind a `dashboard-user` principal (the actor of its audit entries). */
  user?: { id: string; email: string; displayName: string };
}

/** What a created resource records as its creator: a dashboard user, or the API key pair. */
export function creatorType(principal: Principal): 'user' | 'private_key' {
  return principal.kind === 'dashboard-user' ? 'user' : 'private_key';
}

/**
 * Every merchant account a credential is limited to: the account of a limited key pair, the token's
 * `merchant_account_id` claim, and the account an embed token pins. The authentication hook refuses
 * a request whose merchant account differs from any of them (http/auth.ts), so after it they agree.
 */
export function accountPins(principal: Principal): string[] {
  const embedded = principal.embed?.merchant_account_id;
  const pins = [
    principal.restrictedTo,
    principal.tokenMerchantAccountId,
    typeof embedded === 'string' && embedded !== '' ? embedded : null,
  ];
  return pins.filter((pin): pin is string => pin !== null);
}

/**
 * The one merchant account a credential may act on, or null for an instance-wide credential. The
 * only reading of a credential's reach: instance-wide operations (merchant accounts, API key pairs)
 * list, read, change and create only what belongs to this account. Never read `restrictedTo` or
 * `tokenMerchantAccountId` alone: each is one of several limits.
 */
export function accountLimit(principal: Principal | null): string | null {
  return principal ? (accountPins(principal)[0] ?? null) : null;
}

/** A token for browsers and apps (scope `embed`): limited operations, pinned values, rate limited. */
export function isEmbed(principal: Principal | null): boolean {
  return principal?.scopes.includes('embed') === true;
}

export interface RecordedResponse {
  status: number;
  body: string;
}

/** The idempotency record of the current request, when it sent an idempotency-key. */
export interface IdempotencyHandle {
  /** Stores the response in `tx`, so it commits with the work it records. */
  record(tx: Tx, status: number, result: unknown): Promise<RecordedResponse>;
  /**
   * The write that stores the response, for a caller that runs it in one statement with the work it
   * records (src/modules/transactions/guarded-answer.ts): `recorded` may be set once that statement
   * has committed.
   */
  recordWrite(
    db: Executor,
    status: number,
    result: unknown,
  ): Promise<{ write: Compilable<unknown>; recorded: RecordedResponse }>;
  /** Stores an answer passed through as it came (a raw route's encoded `RawResponse`, http/raw-response.ts). */
  recordRaw(tx: Tx, status: number, encoded: string): Promise<RecordedResponse>;
  /**
   * Binds the resource this request records before its connector call to the key, in `tx` (the
   * transaction that records it): a retry after a crash then answers with that resource (a route's
   * `resume`, http/define-route.ts) instead of creating a second one.
   */
  bindResource(tx: Tx, resourceId: string): Promise<void>;
  /** The write of `bindResource`, for a caller that runs it in one statement with its own (db/write-batch.ts). */
  bindResourceWrite(db: Executor, resourceId: string): Compilable<unknown>;
  /** Set once the transaction that recorded the response has committed. */
  recorded: RecordedResponse | null;
}

/** Per-request context handed from routes to services. Free of Fastify types. */
export interface RequestContext {
  deps: Deps;
  requestId: string;
  log: FastifyBaseLogger;
  principal: Principal | null;
  /** The merchant account the request acts on. */
  merchantAccountId: string;
  operationId: string;
  /** Success status of the operation (what an idempotent replay answers with). */
  successStatus: number;
  idempotency: IdempotencyHandle | null;
}

/**
 * Runs the final write of a request in one transaction and, when the request carries an
 * idempotency key, stores its response in that same transaction.
 */
export async function withRequestTransaction<T>(
  ctx: RequestContext,
  fn: (tx: Tx) => Promise<T>,
  options: { statusOf?: (value: T) => number } = {},
): Promise<T> {
  let recorded: RecordedResponse | null = null;
  const result = await withTransaction(ctx.deps.db, async (tx) => {
    const value = await fn(tx);
    // `statusOf`: an operation with two success statuses (201 or 204) records the one it answers.
    if (ctx.idempotency)
      recorded = await ctx.idempotency.record(
        tx,
        options.statusOf ? options.statusOf(value) : ctx.successStatus,
        value,
      );
    return value;
  });
  // Only a committed record may be sent as the stored response.
  if (ctx.idempotency && recorded) ctx.idempotency.recorded = recorded;
  return result;
}

export function hasScope(principal: Principal, scope: string): boolean {
  const [resource, action] = splitScope(scope);
  return principal.scopes.some((granted) => granted === scope || (resource !== '' && granted === `*.${action}`));
}

function splitScope(scope: string): [string, string] {
  const dot = scope.lastIndexOf('.');
  return dot < 0 ? ['', scope] : [scope.slice(0, dot), scope.slice(dot + 1)];
}
