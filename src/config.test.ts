import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { productionPublicUrlProblem } from './http/public-url.ts';
import { ConfigError, loadConfig } from './config.ts';

const rsaPublic = (bits = 2048) => generateKeyPairSync('rsa', { modulusLength: bits }).publicKey;
const pem = (key: ReturnType<typeof rsaPublic>) => key.export({ type: 'spki', format: 'pem' }).toString();

describe('happy', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      databaseUrl: null,
      databasePoolSize: 10,
      instanceId: 'local',
      environment: 'sandbox',
      logLevel: 'info',
      bodyLimit: 1048576,
      publicUrl: 'http://127.0.0.1:8080',
    });
    expect(config.dataDir).toMatch(/\/data$/);
  });

  it('reads every variable', () => {
    const config = loadConfig({
      PORT: '9000',
      HOST: '0.0.0.0',
      DATA_DIR: '/tmp/x',
      DATABASE_URL: 'postgres://u@h:5432/d',
      DATABASE_POOL_SIZE: '25',
      INSTANCE_ID: 'acme',
      ENVIRONMENT: 'production',
      LOG_LEVEL: 'warn',
      VAULT_MASTER_KEY: Buffer.alloc(32, 7).toString('base64'),
    });
    expect(config).toMatchObject({
      port: 9000,
      host: '0.0.0.0',
      dataDir: '/tmp/x',
      databaseUrl: 'postgres://u@h:5432/d',
      databasePoolSize: 25,
      instanceId: 'acme',
      environment: 'production',
      logLevel: 'warn',
    });
  });

  it('reads JOB_CONCURRENCY, the jobs one worker runs at once (default 4)', () => {
    expect(loadConfig({}).jobConcurrency).toBe(4);
    expect(loadConfig({ JOB_CONCURRENCY: '16' }).jobConcurrency).toBe(16);
  });

  it('reads the crash-safety test hooks (default: none)', () => {
    expect(loadConfig({}).testFaults).toEqual({ crashPoint: null, connectorCallLog: null, idempotencyLeaseMs: null });
    expect(
      loadConfig({
        TEST_CRASH_POINT: 'after-answer:createTransactionRefund',
        TEST_CONNECTOR_CALL_LOG: '/tmp/calls.log',
        TEST_IDEMPOTENCY_LEASE_MS: '1000',
      }).testFaults,
    ).toEqual({
      crashPoint: { step: 'after-answer', name: 'createTransactionRefund' },
      connectorCallLog: '/tmp/calls.log',
      idempotencyLeaseMs: 1000,
    });
  });

  it('reads STRIPE_API_BASE_URL in the sandbox (default: none, the real API host)', () => {
    expect(loadConfig({}).stripeApiBaseUrl).toBeNull();
    expect(loadConfig({ STRIPE_API_BASE_URL: 'http://127.0.0.1:12111/' }).stripeApiBaseUrl).toBe(
      'http://127.0.0.1:12111',
    );
  });

  it('reads METRICS_TOKEN (default unset: no metrics endpoint)', () => {
    expect(loadConfig({}).metricsToken).toBeNull();
    expect(loadConfig({ METRICS_TOKEN: 'f'.repeat(64) }).metricsToken).toBe('f'.repeat(64));
  });

  it('reads VAULT_FORWARD_ALLOWED_HOSTS: host names, *.domain patterns, or * alone for no ceiling', () => {
    expect(
      loadConfig({ VAULT_FORWARD_ALLOWED_HOSTS: 'API.example.com, *.example.net' }).vaultForwardAllowedHosts,
    ).toEqual(['api.example.com', '*.example.net']);
    expect(loadConfig({ VAULT_FORWARD_ALLOWED_HOSTS: '*' }).vaultForwardAllowedHosts).toEqual(['*']);
    expect(loadConfig({}).vaultForwardAllowedHosts).toEqual([]);
  });

  it('reads INBOUND_WEBHOOK_RETENTION_DAYS (default 45; at least 31, past the 30 days Adyen retries a webhook for)', () => {
    expect(loadConfig({}).inboundWebhookRetentionDays).toBe(45);
    expect(loadConfig({ INBOUND_WEBHOOK_RETENTION_DAYS: '90' }).inboundWebhookRetentionDays).toBe(90);
    expect(() => loadConfig({ INBOUND_WEBHOOK_RETENTION_DAYS: '30' })).toThrow(
      'INBOUND_WEBHOOK_RETENTION_DAYS: must be between 31 and 3650, got 30',
    );
  });

  it('reads NETWORK_TOKENS_API_PROVISIONING (default false)', () => {
    expect(loadConfig({}).networkTokensApiProvisioning).toBe(false);
    expect(loadConfig({ NETWORK_TOKENS_API_PROVISIONING: 'true' }).networkTokensApiProvisioning).toBe(true);
  });

  it('reads the reports storage: local by default, S3 with path-style addressing when an endpoint is given', () => {
    expect(loadConfig({}).reports).toEqual({ storage: 'local', s3: null, retentionDays: 90 });
    expect(
      loadConfig({
        REPORTS_STORAGE: 's3',
        REPORTS_S3_BUCKET: 'b',
        REPORTS_S3_ENDPOINT: 'http://127.0.0.1:9000',
        REPORTS_S3_ACCESS_KEY_ID: 'k',
        REPORTS_S3_SECRET_ACCESS_KEY: 's',
        REPORTS_RETENTION_DAYS: '7',
      }).reports,
    ).toEqual({
      storage: 's3',
      retentionDays: 7,
      s3: {
        bucket: 'b',
        region: 'us-east-1',
        endpoint: 'http://127.0.0.1:9000',
        accessKeyId: 'k',
        secretAccessKey: 's',
        prefix: '',
        forcePathStyle: true,
      },
    });
    expect(loadConfig({ REPORTS_STORAGE: 's3', REPORTS_S3_BUCKET: 'b' }).reports.s3).toMatchObject({
      endpoint: null,
      accessKeyId: null,
      forcePathStyle: false,
    });
  });
});

describe('happy', () => {
  it('reads PAZE_CLIENT_ID, PAZE_CLIENT_NAME and PAZE_SIGNING_KEYS as PEM or JWKS (default: none)', () => {
    expect(loadConfig({})).toMatchObject({ pazeClientId: null, pazeClientName: null, pazeSigningKeys: [] });
    const [a, b] = [rsaPublic(), rsaPublic()];
    const fromPem = loadConfig({
      PAZE_CLIENT_ID: 'CLIENT-1',
      PAZE_CLIENT_NAME: 'Shop Payments',
      PAZE_SIGNING_KEYS: `${pem(a)}\n${pem(b)}`,
    });
    expect(fromPem).toMatchObject({ pazeClientId: 'CLIENT-1', pazeClientName: 'Shop Payments' });
    expect(fromPem.pazeSigningKeys).toEqual([
      { kid: null, spki: pem(a) },
      { kid: null, spki: pem(b) },
    ]);
    const jwks = JSON.stringify({ keys: [{ ...a.export({ format: 'jwk' }), kid: 'paze-2024' }] });
    expect(loadConfig({ PAZE_SIGNING_KEYS: jwks }).pazeSigningKeys).toEqual([{ kid: 'paze-2024', spki: pem(a) }]);
    expect(
      createPublicKey(loadConfig({ PAZE_SIGNING_KEYS: jwks }).pazeSigningKeys[0]!.spki).asymmetricKeyDetails
        ?.modulusLength,
    ).toBe(2048);
  });

  it("reads TRUST_PROXY: off by default, or the proxies' addresses and CIDR ranges", () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 192.168.1.7,fd00::/8, ::1, loopback' }).trustProxy).toEqual([
      '10.0.0.0/8',
      '192.168.1.7',
      'fd00::/8',
      '::1',
      'loopback',
    ]);
  });

  it('reads definition id = URL pairs in the sandbox, and none by default', () => {
    expect(loadConfig({}).connectorBaseUrls).toEqual({});
    expect(
      loadConfig({
        CONNECTOR_BASE_URLS: 'adyen-card=http://127.0.0.1:9000/v71, braintree-card=http://127.0.0.1:9001/graphql',
      }).connectorBaseUrls,
    ).toEqual({ 'adyen-card': 'http://127.0.0.1:9000/v71', 'braintree-card': 'http://127.0.0.1:9001/graphql' });
    // Adyen's report host (the Settlement details reports) has a key of its own beside its Checkout API's.
    expect(
      loadConfig({
        CONNECTOR_BASE_URLS:
          'adyen-card=http://127.0.0.1:9000/v71,adyen-card-reports=http://127.0.0.1:9000/reports/download',
      }).connectorBaseUrls,
    ).toEqual({
      'adyen-card': 'http://127.0.0.1:9000/v71',
      'adyen-card-reports': 'http://127.0.0.1:9000/reports/download',
    });
  });
});

describe('errors', () => {
  const cases: Array<[Record<string, string>, string]> = [
    [{ PORT: 'eighty' }, 'PORT: must be a whole number between 0 and 65535, got "eighty"'],
    [{ PORT: '70000' }, 'PORT: must be between 0 and 65535, got 70000'],
    [{ ENVIRONMENT: 'staging' }, 'ENVIRONMENT: must be one of sandbox, production, got "staging"'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent, got "loud"'],
    [{ DATABASE_URL: 'mysql://x@y/z' }, 'DATABASE_URL: must start with postgres:// or postgresql://, got "mysql://"'],
    [
      { DATABASE_URL: 'not a url' },
      'DATABASE_URL: is not a valid URL (expected postgres://user:password@host:5432/database)',
    ],
    [{ DATABASE_POOL_SIZE: '0' }, 'DATABASE_POOL_SIZE: must be between 1 and 1000, got 0'],
    [{ JOB_CONCURRENCY: '0' }, 'JOB_CONCURRENCY: must be between 1 and 64, got 0'],
    [
      { METRICS_TOKEN: 'short' },
      'METRICS_TOKEN: must be 32 to 512 printable characters without spaces (for example: openssl rand -hex 32)',
    ],
    [
      { METRICS_TOKEN: `${'a'.repeat(20)} ${'b'.repeat(20)}` },
      'METRICS_TOKEN: must be 32 to 512 printable characters without spaces (for example: openssl rand -hex 32)',
    ],
    [
      { INSTANCE_ID: 'Bad Id' },
      'INSTANCE_ID: must be lowercase letters, digits and dashes (1 to 63 characters), got "Bad Id"',
    ],
    [{ RUN_WORKER: 'maybe' }, 'RUN_WORKER: must be true or false, got "maybe"'],
    [
      { VAULT_FORWARD_ALLOWED_HOSTS: 'api.example.com,https://x.example' },
      'VAULT_FORWARD_ALLOWED_HOSTS: must be host names separated by commas (e.g. api.example.com,*.example.net), got "https://x.example"',
    ],
    [{ VAULT_FORWARD_TIMEOUT_SECONDS: '500' }, 'VAULT_FORWARD_TIMEOUT_SECONDS: must be between 1 and 120, got 500'],
    [{ NETWORK_TOKENS_API_PROVISIONING: 'yes' }, 'NETWORK_TOKENS_API_PROVISIONING: must be true or false, got "yes"'],
    [
      { ENVIRONMENT: 'production' },
      'VAULT_MASTER_KEY: is required in production (32 random bytes in base64); card data is encrypted under it',
    ],
    [{ REPORTS_STORAGE: 's3' }, 'REPORTS_S3_BUCKET: is required when REPORTS_STORAGE is s3'],
    [{ REPORTS_STORAGE: 'ftp' }, 'REPORTS_STORAGE: must be one of local, s3, got "ftp"'],
    [
      { REPORTS_STORAGE: 's3', REPORTS_S3_BUCKET: 'b', REPORTS_S3_ACCESS_KEY_ID: 'k' },
      'REPORTS_S3_SECRET_ACCESS_KEY: REPORTS_S3_ACCESS_KEY_ID and REPORTS_S3_SECRET_ACCESS_KEY go together',
    ],
    [{ REPORTS_RETENTION_DAYS: '0' }, 'REPORTS_RETENTION_DAYS: must be between 1 and 3650, got 0'],
    [
      { VAULT_MASTER_KEY: 'c2hvcnQ=' },
      'VAULT_MASTER_KEY: must be 32 random bytes in base64 (for example: openssl rand -base64 32)',
    ],
    [
      { CONNECTOR_BASE_URLS: 'adyen-card=ftp://x' },
      'CONNECTOR_BASE_URLS: must be <definition id>=<http(s) URL> pairs separated by commas, got "adyen-card=ftp://x"',
    ],
    [
      {
        ENVIRONMENT: 'production',
        VAULT_MASTER_KEY: Buffer.alloc(32, 7).toString('base64'),
        CONNECTOR_BASE_URLS: 'adyen-card=https://fake.example',
      },
      "CONNECTOR_BASE_URLS: is for tests and sandboxes only: in production connectors talk to their providers' own hosts",
    ],
    [
      {
        ENVIRONMENT: 'production',
        VAULT_MASTER_KEY: Buffer.alloc(32, 7).toString('base64'),
        STRIPE_API_BASE_URL: 'http://127.0.0.1:12111',
      },
      "STRIPE_API_BASE_URL: is for tests and the sandbox only; production calls the provider's own API host",
    ],
    [{ PAZE_CLIENT_ID: 'x'.repeat(51) }, 'PAZE_CLIENT_ID: must be at most 50 characters, got 51'],
    [
      { PAZE_SIGNING_KEYS: 'not a key' },
      'PAZE_SIGNING_KEYS: must be PEM public keys (-----BEGIN PUBLIC KEY-----) or certificates, or a JWKS',
    ],
    [{ PAZE_SIGNING_KEYS: '{"keys": [' }, 'PAZE_SIGNING_KEYS: must be PEM public keys or a JWKS'],
    [
      { PAZE_SIGNING_KEYS: '{"keys": [{"kty": "RSA", "n": "AQAB"}]}' },
      'PAZE_SIGNING_KEYS: holds a key that does not parse',
    ],
    [
      { PAZE_SIGNING_KEYS: pem(rsaPublic(1024)) },
      'PAZE_SIGNING_KEYS: must hold RSA public keys of at least 2048 bits (Paze signs with RS256)',
    ],
    [
      { PAZE_SIGNING_KEYS: pem(generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey) },
      'PAZE_SIGNING_KEYS: must hold RSA public keys of at least 2048 bits',
    ],
    [{ STRIPE_API_BASE_URL: 'ftp://fake' }, 'STRIPE_API_BASE_URL: must be an http(s) URL, got "ftp://fake"'],
    [
      { TRUST_PROXY: 'true' },
      'TRUST_PROXY: must be the proxies\' addresses and CIDR ranges separated by commas (e.g. 10.0.0.0/8,192.168.1.7 or loopback), got "true"',
    ],
    [
      { TRUST_PROXY: '1' },
      "TRUST_PROXY: a hop count (1) cannot tell your proxy from a client that connects directly; name the proxies' addresses or CIDR ranges (e.g. 10.0.0.0/8)",
    ],
    [
      { TRUST_PROXY: '10.0.0.0/33' },
      'TRUST_PROXY: must be the proxies\' addresses and CIDR ranges separated by commas (e.g. 10.0.0.0/8,192.168.1.7 or loopback), got "10.0.0.0/33"',
    ],
    [{ TRUST_PROXY: '10.0.0.0/8/8' }, 'got "10.0.0.0/8/8"'],
    [{ TRUST_PROXY: '10.0.0.0/' }, 'got "10.0.0.0/"'],
    [{ TRUST_PROXY: '10.0.0.1,proxy.internal' }, 'got "proxy.internal"'],
    [{ TRUST_PROXY: '10.0.0.1,,10.0.0.2' }, 'got ""'],
    [
      { TRUST_PROXY: '0.0.0.0/0' },
      "TRUST_PROXY: 0.0.0.0/0 trusts every address, so any client could name its own address in X-Forwarded-For; name the proxies' addresses or ranges",
    ],
    [{ TRUST_PROXY: '::/0' }, 'TRUST_PROXY: ::/0 trusts every address'],
    // The crash-safety test's hooks (one kills the process): never in production.
    [
      {
        ENVIRONMENT: 'production',
        VAULT_MASTER_KEY: Buffer.alloc(32, 7).toString('base64'),
        TEST_CRASH_POINT: 'before-call:refund',
      },
      'TEST_CRASH_POINT: is for the crash-safety tests only and is refused in production',
    ],
    [
      {
        ENVIRONMENT: 'production',
        VAULT_MASTER_KEY: Buffer.alloc(32, 7).toString('base64'),
        TEST_CONNECTOR_CALL_LOG: '/tmp/calls.log',
      },
      'TEST_CONNECTOR_CALL_LOG: is for the crash-safety tests only and is refused in production',
    ],
    [
      {
        ENVIRONMENT: 'production',
        VAULT_MASTER_KEY: Buffer.alloc(32, 7).toString('base64'),
        TEST_IDEMPOTENCY_LEASE_MS: '1000',
      },
      'TEST_IDEMPOTENCY_LEASE_MS: is for the crash-safety tests only and is refused in production',
    ],
    [
      { TEST_CRASH_POINT: 'during:refund' },
      'TEST_CRASH_POINT: must be <step>:<name> with step one of before-call, after-call, after-answer, got "during:refund"',
    ],
    [{ TEST_IDEMPOTENCY_LEASE_MS: '5' }, 'TEST_IDEMPOTENCY_LEASE_MS: must be between 100 and 120000, got 5'],
    // HOST is where to listen; PUBLIC_URL what is handed out (issue 51): each error blames the right one.
    [
      { HOST: 'localhost:8080' },
      'HOST: takes no port (the port is PORT), got "localhost:8080"; set HOST=localhost PORT=8080',
    ],
    [{ HOST: '[::1]:9000' }, 'HOST: takes no port (the port is PORT), got "[::1]:9000"; set HOST=::1 PORT=9000'],
    [
      { HOST: 'http://0.0.0.0' },
      'HOST: is the address to listen on, not a URL (the URL clients use is PUBLIC_URL), got "http://0.0.0.0"',
    ],
    [
      { HOST: 'my host' },
      'HOST: must be an IP address or a host name (e.g. 127.0.0.1, 0.0.0.0, ::, localhost), got "my host"',
    ],
    [
      { PUBLIC_URL: 'payments.example.com' },
      'PUBLIC_URL: is not a valid URL, got "payments.example.com" (e.g. https://payments.example.com)',
    ],
    [
      { PUBLIC_URL: 'ftp://payments.example.com' },
      'PUBLIC_URL: must be an http(s) URL, got "ftp://payments.example.com"',
    ],
    [{ PUBLIC_URL: 'http://0.0.0.0:8080' }, 'PUBLIC_URL: names 0.0.0.0, an address to listen on that nobody can open'],
    [{ PUBLIC_URL: 'http://[::]:8080' }, 'PUBLIC_URL: names [::], an address to listen on that nobody can open'],
  ];
  it.each(cases)('refuses %j with one line naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});

describe('PUBLIC_URL and HOST', () => {
  it('never derives a URL from an unspecified HOST: 0.0.0.0 and :: become loopback, with the port', () => {
    expect(loadConfig({ HOST: '0.0.0.0', PORT: '8097' })).toMatchObject({
      host: '0.0.0.0',
      publicUrl: 'http://127.0.0.1:8097',
      publicUrlSet: false,
    });
    expect(loadConfig({ HOST: '::', PORT: '8097' })).toMatchObject({
      host: '::',
      publicUrl: 'http://localhost:8097',
      publicUrlSet: false,
    });
    expect(loadConfig({ HOST: '::1', PORT: '8097' }).publicUrl).toBe('http://[::1]:8097');
    expect(loadConfig({ HOST: 'svc.internal', PORT: '8097' }).publicUrl).toBe('http://svc.internal:8097');
  });

  it('hands out PUBLIC_URL as given (less a trailing slash) and records that it was given', () => {
    expect(loadConfig({ HOST: '0.0.0.0', PUBLIC_URL: 'https://payments.example.com/' })).toMatchObject({
      publicUrl: 'https://payments.example.com',
      publicUrlSet: true,
    });
  });

  it('makes PUBLIC_URL a condition of serving in production, with a message that says what to set', () => {
    expect(productionPublicUrlProblem('production', false)).toMatch(
      /^is required in production: the address buyers and clients reach this server at \(e\.g\. https:\/\/payments\.example\.com\)/,
    );
    expect(productionPublicUrlProblem('production', true)).toBeNull();
    expect(productionPublicUrlProblem('sandbox', false)).toBeNull();
  });
});
