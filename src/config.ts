import { createPublicKey, X509Certificate, type JsonWebKey } from 'node:crypto';
import { isIP } from 'node:net';
import path from 'node:path';
import { hostProblem, localUrl, publicUrlProblem } from './http/public-url.ts';
import { CRASH_STEPS, parseCrashPoint, type TestFaults } from './observability/test-faults.ts';

/**
 * Typed configuration, read once from the environment and passed down.
 * No other module reads process.env.
 */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | null;
  /** Connections each process keeps to the PostgreSQL server of `databaseUrl` (PGlite has one). */
  databasePoolSize: number;
  /** Concurrent requests' identical writes share one statement (PostgreSQL; src/db/group-commit.ts). */
  databaseGroupCommit: boolean;
  instanceId: string;
  environment: 'sandbox' | 'production';
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Largest accepted request body, in bytes. */
  bodyLimit: number;
  /** How long a completed idempotent response is kept and replayed, in seconds. */
  idempotencyTtlSeconds: number;
  /** Run the job worker inside the HTTP process. */
  runWorker: boolean;
  /** Poll interval of the job worker, in milliseconds. */
  jobPollMs: number;
  /** Jobs one worker runs at once. */
  jobConcurrency: number;
  /** Public base URL printed at start and written into the OpenAPI servers list. */
  publicUrl: string;
  /** PUBLIC_URL was given (required to serve in production); otherwise publicUrl is HOST:PORT on loopback. */
  publicUrlSet: boolean;
  /** Longest accepted bearer token lifetime (exp - iat), in seconds. */
  tokenMaxLifetimeSeconds: number;
  /** Enumeration prevention: requests per minute per embed token or checkout session. */
  embedRateLimitPerMinute: number;
  /** Default lifetime of a checkout session (and at most of its held card data), in seconds. */
  checkoutSessionTtlSeconds: number;
  /** Dashboard sign-in sessions: ended after this long without a request, and this long after sign-in whatever happens. */
  dashboardSession: { idleSeconds: number; absoluteSeconds: number };
  /** Sandbox: delay before a captured transaction is reported settled. */
  settlementDelaySeconds: number;
  /** How long a buyer has to approve a redirect payment before it times out. */
  buyerApprovalTimeoutSeconds: number;
  /** Sandbox only: webhooks may go to http and to loopback/private addresses (local receivers). */
  webhookAllowPrivateUrls: boolean;
  /** Days a provider webhook's deduplication row is kept (at least 31: Adyen resends for 30 days). */
  inboundWebhookRetentionDays: number;
  /** Current vault master key (base64 of 32 bytes); null in the sandbox means a key file in DATA_DIR. */
  vaultMasterKey: string | null;
  /** Earlier master keys, still able to unwrap data keys during a rotation. */
  vaultPreviousMasterKeys: string[];
  /**
   * Whether `POST /payment-methods/{id}/network-tokens` may provision tokens in production (the spec:
   * not enabled by default there). Always allowed in the sandbox.
   */
  networkTokensApiProvisioning: boolean;
  /** Sandbox only: vault forwarding may go to http and to loopback/private addresses (local targets). */
  vaultForwardAllowPrivateUrls: boolean;
  /** Hosts vault forwarding may reach in production (`*.example.com` covers subdomains); empty: none. */
  vaultForwardAllowedHosts: string[];
  /** Longest a vault forward waits for the target (a caller may ask for less), in seconds. */
  vaultForwardTimeoutSeconds: number;
  /** Vault forwards running at once per merchant account in one process. */
  vaultForwardMaxConcurrent: number;
  /**
   * Real connectors (Adyen, Braintree): definition id → base URL replacing the provider's, for local
   * fakes and sandboxes only (`CONNECTOR_BASE_URLS`, refused in production). Empty: the providers' own hosts.
   */
  connectorBaseUrls: Record<string, string>;
  // Real connectors (issue 20).
  /** Sandbox/tests only: where the stripe-card connector sends its API calls instead of https://api.stripe.com. */
  stripeApiBaseUrl: string | null;
  /** Bearer token of `GET /metrics`; null leaves the endpoint off (404). */
  metricsToken: string | null;
  /** Digital wallets: how old an Apple Pay token's signing time may be, in seconds. */
  walletTokenMaxAgeSeconds: number;
  /** Digital wallets: root certificates (PEM) trusted for Apple Pay token signatures besides Apple Root CA - G3. */
  applePayRootCertificates: string[];
  /** Digital wallets: Google Pay root signing keys, as Google publishes them (`{keys:[{keyValue, protocolVersion, keyExpiration}]}`). */
  googlePayRootSigningKeys: Array<{ keyValue: string; protocolVersion: string; keyExpiration?: string }>;
  /** Digital wallets: PEM EC P-256 key that signs the Google Pay session's token (authJwt); null: sandbox key, none in production. */
  googlePayAuthPrivateKey: string | null;
  /** Digital wallets: the Paze client this server's operator onboarded with Paze (web sessions); a wallet's extra_configuration may name its own. */
  pazeClientId: string | null;
  pazeClientName: string | null;
  /** Digital wallets: Paze's RSA signing public keys (SPKI PEM, with the `kid` Paze names when known), trusted for completeResponse signatures. */
  pazeSigningKeys: Array<{ kid: string | null; spki: string }>;
  /** Reports (docs/reports.md): where files are stored and how long they are kept. */
  reports: ReportsConfig;
  /** Slow and abusive clients: the HTTP server's limits (docs/reliability.md). */
  http: HttpLimits;
  /** Proxies whose X-Forwarded-For names the client (Fastify's trustProxy): off, or their addresses and CIDR ranges. */
  trustProxy: TrustProxy;
  /** Tests only (`TEST_CRASH_POINT`, `TEST_CONNECTOR_CALL_LOG`; refused in production): observability/test-faults.ts. */
  testFaults: TestFaults;
}

/** `false`: the TCP peer is the client; a list: the proxies' addresses and ranges, whose X-Forwarded-For is believed. */
export type TrustProxy = false | string[];

export interface ReportsConfig {
  /** `local`: files under DATA_DIR/reports; `s3`: an S3-compatible bucket. */
  storage: 'local' | 's3';
  s3: { bucket: string; region: string; endpoint: string | null; accessKeyId: string | null; secretAccessKey: string | null; prefix: string; forcePathStyle: boolean } | null;
  /** Executions (and their files) older than this are purged. */
  retentionDays: number;
}

/** The HTTP server's connection limits, in milliseconds and bytes. */
export interface HttpLimits {
  /** All request headers must arrive within this (slow-header clients). */
  headersTimeoutMs: number;
  /** The whole request, headers and body, must arrive within this (slow-body clients). */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** A connection with no data either way for this long is closed; above the longest handler. */
  connectionTimeoutMs: number;
  /** Requests served on one connection before it is closed (spreads clients over processes). */
  maxRequestsPerSocket: number;
  /** Largest accepted size of all request headers together. */
  maxHeaderBytes: number;
}

export class ConfigError extends Error {
  constructor(readonly variable: string, problem: string) {
    super(`${variable}: ${problem}`);
  }
}

type Env = Record<string, string | undefined>;

function read(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number between ${min} and ${max}, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

function oneOf<T extends string>(env: Env, name: string, fallback: T, allowed: readonly T[]): T {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `must be one of ${allowed.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

/** Comma-separated host names, lowercased; `*.` in front covers every subdomain. */
function hostList(env: Env, name: string): string[] {
  const raw = read(env, name);
  if (raw === undefined) return [];
  const hosts = raw.split(',').map((h) => h.trim().toLowerCase()).filter((h) => h !== '');
  for (const host of hosts) {
    // `*` alone: no ceiling (VAULT_FORWARD_ALLOWED_HOSTS; the merchant accounts' configs decide).
    if (host === '*' && name === 'VAULT_FORWARD_ALLOWED_HOSTS') continue;
    if (!/^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(host)) throw new ConfigError(name, `must be host names separated by commas (e.g. api.example.com,*.example.net), got "${host}"`);
  }
  return hosts;
}

/** `id=url,id=url`: base URLs replacing the providers' for the sandbox; production refuses any. */
function connectorBaseUrls(env: Env, environment: 'sandbox' | 'production'): Record<string, string> {
  const name = 'CONNECTOR_BASE_URLS';
  const raw = read(env, name);
  if (raw === undefined || raw.trim() === '') return {};
  if (environment === 'production') throw new ConfigError(name, 'is for tests and sandboxes only: in production connectors talk to their providers\' own hosts');
  const entries = raw.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  return Object.fromEntries(entries.map((entry) => {
    const at = entry.indexOf('=');
    const id = entry.slice(0, at).trim();
    const url = entry.slice(at + 1).trim();
    if (at <= 0 || !/^[a-z0-9]+(-[a-z0-9_]+)+$/.test(id) || !/^https?:\/\/[^\s]+$/.test(url)) throw new ConfigError(name, `must be <definition id>=<http(s) URL> pairs separated by commas, got "${entry}"`);
    return [id, url];
  }));
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(name, `must be true or false, got "${raw}"`);
}

function databaseUrl(env: Env): string | null {
  const raw = read(env, 'DATABASE_URL');
  if (raw === undefined) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('DATABASE_URL', 'is not a valid URL (expected postgres://user:password@host:5432/database)');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new ConfigError('DATABASE_URL', `must start with postgres:// or postgresql://, got "${url.protocol}//"`);
  }
  return raw;
}

function masterKey(name: string, value: string): string {
  if (Buffer.from(value.trim(), 'base64').length !== 32) throw new ConfigError(name, 'must be 32 random bytes in base64 (for example: openssl rand -base64 32)');
  return value.trim();
}

function vaultKeys(env: Env, environment: 'sandbox' | 'production'): Pick<Config, 'vaultMasterKey' | 'vaultPreviousMasterKeys'> {
  const current = read(env, 'VAULT_MASTER_KEY');
  if (current === undefined && environment === 'production') {
    throw new ConfigError('VAULT_MASTER_KEY', 'is required in production (32 random bytes in base64); card data is encrypted under it');
  }
  const previous = (read(env, 'VAULT_PREVIOUS_MASTER_KEYS') ?? '').split(',').filter((v) => v.trim() !== '');
  return { vaultMasterKey: current === undefined ? null : masterKey('VAULT_MASTER_KEY', current), vaultPreviousMasterKeys: previous.map((v) => masterKey('VAULT_PREVIOUS_MASTER_KEYS', v)) };
}

/** Optional text of at most `max` characters. */
function boundedText(env: Env, name: string, max: number): string | null {
  const value = read(env, name);
  if (value !== undefined && value.length > max) throw new ConfigError(name, `must be at most ${max} characters, got ${value.length}`);
  return value ?? null;
}

/** A shared secret for Prometheus: long enough not to be guessed, printable so it fits a header. */
function metricsToken(env: Env): string | null {
  const raw = read(env, 'METRICS_TOKEN');
  if (raw === undefined) return null;
  if (!/^[\x21-\x7e]{32,512}$/.test(raw)) throw new ConfigError('METRICS_TOKEN', 'must be 32 to 512 printable characters without spaces (for example: openssl rand -hex 32)');
  return raw;
}

/** PEM certificates of a variable, each checked to parse. */
function pemCertificates(env: Env, name: string): string[] {
  const raw = read(env, name);
  if (raw === undefined) return [];
  const blocks = raw.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw new ConfigError(name, 'must hold PEM certificates (-----BEGIN CERTIFICATE-----)');
  for (const block of blocks) {
    try {
      new X509Certificate(block);
    } catch {
      throw new ConfigError(name, 'holds a certificate that does not parse');
    }
  }
  return blocks;
}

/** Google's published root signing keys JSON (`{"keys":[...]}`). */
function googleRootKeys(env: Env, name: string): Config['googlePayRootSigningKeys'] {
  const raw = read(env, name);
  if (raw === undefined) return [];
  let keys: unknown;
  try {
    keys = (JSON.parse(raw) as { keys?: unknown }).keys;
  } catch {
    throw new ConfigError(name, 'must be the JSON Google publishes: {"keys":[{"keyValue":"...","protocolVersion":"ECv2","keyExpiration":"..."}]}');
  }
  const valid = Array.isArray(keys) && keys.every((k) => typeof k?.keyValue === 'string' && typeof k?.protocolVersion === 'string');
  if (!valid) throw new ConfigError(name, 'must list keys with keyValue and protocolVersion');
  return keys as Config['googlePayRootSigningKeys'];
}

/** An RSA public key of at least 2048 bits as SPKI PEM, from PEM (key or certificate) or a JWK. */
function rsaSpki(name: string, source: string | JsonWebKey): string {
  let key;
  try {
    key = typeof source === 'string' && source.includes('CERTIFICATE') ? new X509Certificate(source).publicKey : typeof source === 'string' ? createPublicKey(source) : createPublicKey({ key: source, format: 'jwk' });
  } catch {
    throw new ConfigError(name, 'holds a key that does not parse');
  }
  if (key.asymmetricKeyType !== 'rsa' || (key.asymmetricKeyDetails?.modulusLength ?? 0) < 2048) throw new ConfigError(name, 'must hold RSA public keys of at least 2048 bits (Paze signs with RS256)');
  return key.export({ type: 'spki', format: 'pem' }).toString();
}

/** Paze's signing keys: PEM public keys or certificates, or a JWKS (`{"keys":[{"kty":"RSA","kid":…,"n":…,"e":…}]}`). */
function pazeSigningKeys(env: Env, name: string): Config['pazeSigningKeys'] {
  const raw = read(env, name);
  if (raw === undefined) return [];
  if (raw.trimStart().startsWith('{')) {
    let keys: unknown;
    try {
      keys = (JSON.parse(raw) as { keys?: unknown }).keys;
    } catch {
      throw new ConfigError(name, 'must be PEM public keys or a JWKS ({"keys":[{"kty":"RSA","kid":"...","n":"...","e":"AQAB"}]})');
    }
    if (!Array.isArray(keys) || keys.length === 0) throw new ConfigError(name, 'must list keys in "keys"');
    return keys.map((jwk: JsonWebKey & { kid?: unknown }) => ({ kid: typeof jwk?.kid === 'string' ? jwk.kid : null, spki: rsaSpki(name, jwk) }));
  }
  const blocks = raw.match(/-----BEGIN (PUBLIC KEY|RSA PUBLIC KEY|CERTIFICATE)-----[\s\S]+?-----END \1-----/g) ?? [];
  if (blocks.length === 0) throw new ConfigError(name, 'must be PEM public keys (-----BEGIN PUBLIC KEY-----) or certificates, or a JWKS');
  return blocks.map((block) => ({ kid: null, spki: rsaSpki(name, block) }));
}

function reportsConfig(env: Env): ReportsConfig {
  const storage = oneOf(env, 'REPORTS_STORAGE', 'local', ['local', 's3'] as const);
  const retentionDays = integer(env, 'REPORTS_RETENTION_DAYS', 90, 1, 3650);
  if (storage === 'local') return { storage, s3: null, retentionDays };
  const bucket = read(env, 'REPORTS_S3_BUCKET');
  if (bucket === undefined) throw new ConfigError('REPORTS_S3_BUCKET', 'is required when REPORTS_STORAGE is s3');
  const endpoint = read(env, 'REPORTS_S3_ENDPOINT') ?? null;
  if (endpoint !== null && !/^https?:\/\/[^\s]+$/.test(endpoint)) throw new ConfigError('REPORTS_S3_ENDPOINT', `must be an http(s) URL, got "${endpoint}"`);
  const accessKeyId = read(env, 'REPORTS_S3_ACCESS_KEY_ID') ?? null;
  const secretAccessKey = read(env, 'REPORTS_S3_SECRET_ACCESS_KEY') ?? null;
  if ((accessKeyId === null) !== (secretAccessKey === null)) throw new ConfigError('REPORTS_S3_SECRET_ACCESS_KEY', 'REPORTS_S3_ACCESS_KEY_ID and REPORTS_S3_SECRET_ACCESS_KEY go together (or neither, for the default credential chain)');
  const s3 = { bucket, region: read(env, 'REPORTS_S3_REGION') ?? 'us-east-1', endpoint, accessKeyId, secretAccessKey, prefix: read(env, 'REPORTS_S3_PREFIX') ?? '', forcePathStyle: boolean(env, 'REPORTS_S3_FORCE_PATH_STYLE', endpoint !== null) };
  return { storage, s3, retentionDays };
}

function httpLimits(env: Env, vaultForwardTimeoutSeconds: number): HttpLimits {
  const limits: HttpLimits = {
    headersTimeoutMs: integer(env, 'HTTP_HEADERS_TIMEOUT_MS', 10_000, 500, 600_000),
    requestTimeoutMs: integer(env, 'HTTP_REQUEST_TIMEOUT_MS', 30_000, 1_000, 3_600_000),
    keepAliveTimeoutMs: integer(env, 'HTTP_KEEP_ALIVE_TIMEOUT_MS', 72_000, 1_000, 600_000),
    connectionTimeoutMs: integer(env, 'HTTP_CONNECTION_TIMEOUT_MS', 180_000, 10_000, 3_600_000),
    maxRequestsPerSocket: integer(env, 'HTTP_MAX_REQUESTS_PER_SOCKET', 1_000, 0, 1_000_000),
    maxHeaderBytes: integer(env, 'HTTP_MAX_HEADER_BYTES', 16_384, 1_024, 1_048_576),
  };
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) throw new ConfigError('HTTP_HEADERS_TIMEOUT_MS', `must not exceed HTTP_REQUEST_TIMEOUT_MS (${limits.requestTimeoutMs}), got ${limits.headersTimeoutMs}`);
  // A vault forward or connector call sends nothing on the client's connection while it waits.
  const longestHandlerMs = Math.max(vaultForwardTimeoutSeconds, 30) * 1000 + 5_000;
  if (limits.connectionTimeoutMs <= longestHandlerMs) throw new ConfigError('HTTP_CONNECTION_TIMEOUT_MS', `must be above the longest request handler (${longestHandlerMs} ms, from VAULT_FORWARD_TIMEOUT_SECONDS), got ${limits.connectionTimeoutMs}`);
  return limits;
}

/**
 * TRUST_PROXY (docs/security.md, "Client addresses and proxies"): the addresses and CIDR ranges of
 * the proxies (proxy-addr's names loopback, linklocal and uniquelocal too). Refused: `true` and /0
 * ranges, with which any client could name its own address in X-Forwarded-For, and hop counts,
 * which cannot tell the proxy from a client connecting directly (Fastify 5 ignores them).
 */
function trustProxy(env: Env): TrustProxy {
  const name = 'TRUST_PROXY';
  const raw = read(env, name);
  if (raw === undefined) return false;
  if (/^\d+$/.test(raw)) throw new ConfigError(name, `a hop count (${raw}) cannot tell your proxy from a client that connects directly; name the proxies' addresses or CIDR ranges (e.g. 10.0.0.0/8)`);
  return raw.split(',').map((entry) => {
    const value = entry.trim();
    const [address = '', prefix, extra] = value.split('/');
    const family = isIP(address);
    const bits = prefix === undefined ? null : /^\d{1,3}$/.test(prefix) ? Number(prefix) : NaN;
    const valid = ['loopback', 'linklocal', 'uniquelocal'].includes(value) || (family !== 0 && extra === undefined && (bits === null || bits <= (family === 4 ? 32 : 128)));
    if (!valid) throw new ConfigError(name, `must be the proxies' addresses and CIDR ranges separated by commas (e.g. 10.0.0.0/8,192.168.1.7 or loopback), got "${value}"`);
    if (bits === 0) throw new ConfigError(name, `${value} trusts every address, so any client could name its own address in X-Forwarded-For; name the proxies' addresses or ranges`);
    return value;
  });
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/**
 * A provider API base URL override (a local fake or a sandbox proxy). Production always talks to
 * the provider's own host: an override there is a configuration error, not a silent redirect of
 * card data.
 */
function providerBaseUrl(env: Env, name: string, environment: 'sandbox' | 'production'): string | null {
  const value = read(env, name);
  if (value === undefined) return null;
  if (environment === 'production') throw new ConfigError(name, 'is for tests and the sandbox only; production calls the provider\'s own API host');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(name, `is not a valid URL, got "${value}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(name, `must be an http(s) URL, got "${value}"`);
  return url.origin;
}

/** The crash-safety test's hooks (observability/test-faults.ts): never in production, where a variable that kills the process would be a weapon. */
function testFaults(env: Env, environment: 'sandbox' | 'production'): TestFaults {
  const names = ['TEST_CRASH_POINT', 'TEST_CONNECTOR_CALL_LOG', 'TEST_IDEMPOTENCY_LEASE_MS'] as const;
  for (const name of names) {
    if (read(env, name) !== undefined && environment === 'production') throw new ConfigError(name, 'is for the crash-safety tests only and is refused in production');
  }
  const point = read(env, 'TEST_CRASH_POINT');
  const crashPoint = point === undefined ? null : parseCrashPoint(point);
  if (point !== undefined && !crashPoint) throw new ConfigError('TEST_CRASH_POINT', `must be <step>:<name> with step one of ${CRASH_STEPS.join(', ')}, got "${point}"`);
  const callLog = read(env, 'TEST_CONNECTOR_CALL_LOG');
  const lease = read(env, 'TEST_IDEMPOTENCY_LEASE_MS') === undefined ? null : integer(env, 'TEST_IDEMPOTENCY_LEASE_MS', 0, 100, 120_000);
  return { crashPoint, connectorCallLog: callLog === undefined ? null : path.resolve(callLog), idempotencyLeaseMs: lease };
}

/** Parses and validates the environment. Throws ConfigError naming the first bad variable. */
export function loadConfig(env: Env = process.env): Config {
  const port = integer(env, 'PORT', 8080, 0, 65535);
  const host = read(env, 'HOST') ?? '127.0.0.1';
  const hostError = hostProblem(host);
  if (hostError) throw new ConfigError('HOST', hostError);
  const instanceId = read(env, 'INSTANCE_ID') ?? 'local';
  if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(instanceId)) {
    throw new ConfigError('INSTANCE_ID', `must be lowercase letters, digits and dashes (1 to 63 characters), got "${instanceId}"`);
  }
  // PUBLIC_URL is checked, never derived from an unspecified HOST (http/public-url.ts).
  const givenPublicUrl = read(env, 'PUBLIC_URL');
  const publicUrlError = givenPublicUrl === undefined ? null : publicUrlProblem(givenPublicUrl);
  if (publicUrlError) throw new ConfigError('PUBLIC_URL', publicUrlError);
  const publicUrl = givenPublicUrl ?? localUrl(host, port);
  const environment = oneOf(env, 'ENVIRONMENT', 'sandbox', ['sandbox', 'production'] as const);
  return {
    port,
    host,
    dataDir: path.resolve(read(env, 'DATA_DIR') ?? './data'),
    databaseUrl: databaseUrl(env),
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', 10, 1, 1000),
    databaseGroupCommit: boolean(env, 'DATABASE_GROUP_COMMIT', true),
    instanceId,
    environment,
    logLevel: oneOf(env, 'LOG_LEVEL', 'info', LOG_LEVELS),
    bodyLimit: integer(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
    idempotencyTtlSeconds: integer(env, 'IDEMPOTENCY_TTL_SECONDS', 24 * 3600, 3600, 30 * 24 * 3600),
    runWorker: boolean(env, 'RUN_WORKER', true),
    jobPollMs: integer(env, 'JOB_POLL_MS', 1000, 10, 60_000),
    jobConcurrency: integer(env, 'JOB_CONCURRENCY', 4, 1, 64),
    publicUrl: publicUrl.replace(/\/$/, ''),
    publicUrlSet: givenPublicUrl !== undefined,
    tokenMaxLifetimeSeconds: integer(env, 'TOKEN_MAX_LIFETIME_SECONDS', 24 * 3600, 60, 30 * 24 * 3600),
    embedRateLimitPerMinute: integer(env, 'EMBED_RATE_LIMIT_PER_MINUTE', 50, 1, 100_000),
    checkoutSessionTtlSeconds: integer(env, 'CHECKOUT_SESSION_TTL_SECONDS', 3600, 60, 24 * 3600),
    dashboardSession: {
      idleSeconds: 60 * integer(env, 'DASHBOARD_SESSION_IDLE_MINUTES', 30, 1, 24 * 60),
      absoluteSeconds: 3600 * integer(env, 'DASHBOARD_SESSION_ABSOLUTE_HOURS', 12, 1, 7 * 24),
    },
    settlementDelaySeconds: integer(env, 'SETTLEMENT_DELAY_SECONDS', 60, 0, 7 * 24 * 3600),
    buyerApprovalTimeoutSeconds: integer(env, 'BUYER_APPROVAL_TIMEOUT_SECONDS', 3600, 60, 7 * 24 * 3600),
    webhookAllowPrivateUrls: boolean(env, 'WEBHOOK_ALLOW_PRIVATE_URLS', false),
    inboundWebhookRetentionDays: integer(env, 'INBOUND_WEBHOOK_RETENTION_DAYS', 45, 31, 3650),
    ...vaultKeys(env, environment),
    networkTokensApiProvisioning: boolean(env, 'NETWORK_TOKENS_API_PROVISIONING', false),
    vaultForwardAllowPrivateUrls: boolean(env, 'VAULT_FORWARD_ALLOW_PRIVATE_URLS', false),
    vaultForwardAllowedHosts: hostList(env, 'VAULT_FORWARD_ALLOWED_HOSTS'),
    vaultForwardTimeoutSeconds: integer(env, 'VAULT_FORWARD_TIMEOUT_SECONDS', 30, 1, 120),
    vaultForwardMaxConcurrent: integer(env, 'VAULT_FORWARD_MAX_CONCURRENT', 10, 1, 1000),
    connectorBaseUrls: connectorBaseUrls(env, environment),
    stripeApiBaseUrl: providerBaseUrl(env, 'STRIPE_API_BASE_URL', environment),
    metricsToken: metricsToken(env),
    walletTokenMaxAgeSeconds: integer(env, 'WALLET_TOKEN_MAX_AGE_SECONDS', 300, 10, 3600),
    applePayRootCertificates: pemCertificates(env, 'APPLE_PAY_ROOT_CERTIFICATES'),
    googlePayRootSigningKeys: googleRootKeys(env, 'GOOGLE_PAY_ROOT_SIGNING_KEYS'),
    googlePayAuthPrivateKey: read(env, 'GOOGLE_PAY_AUTH_PRIVATE_KEY') ?? null,
    pazeClientId: boundedText(env, 'PAZE_CLIENT_ID', 50),
    pazeClientName: boundedText(env, 'PAZE_CLIENT_NAME', 255),
    pazeSigningKeys: pazeSigningKeys(env, 'PAZE_SIGNING_KEYS'),
    reports: reportsConfig(env),
    http: httpLimits(env, integer(env, 'VAULT_FORWARD_TIMEOUT_SECONDS', 30, 1, 120)),
    trustProxy: trustProxy(env),
    testFaults: testFaults(env, environment),
  };
}
