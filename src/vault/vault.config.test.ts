import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, configurationVariables, loadConfig } from '../config.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-secret-files-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const file = (name: string, content: string) => {
  const at = path.join(dir, name);
  fs.writeFileSync(at, content, { mode: 0o600 });
  return at;
};
const KEY = Buffer.alloc(32, 5).toString('base64');
const refusal = (env: Record<string, string>) => {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('the configuration was accepted');
};

describe('happy', () => {
  it('reads the env provider by default, and the KMS and transit settings only when a key of theirs is used', () => {
    const config = loadConfig({ VAULT_MASTER_KEY: KEY });
    expect(config).toMatchObject({
      vaultMasterKeyProvider: 'env',
      vaultMasterKey: KEY,
      vaultPreviousMasterKeys: [],
      vaultKms: { keyId: null, region: null, endpoint: null },
      vaultTransit: null,
      vaultDataKeyCacheSeconds: 300,
    });
  });

  it('reads an AWS KMS master key, and previous keys of every provider', () => {
    const config = loadConfig({
      ENVIRONMENT: 'production',
      VAULT_MASTER_KEY_PROVIDER: 'aws-kms',
      VAULT_KMS_KEY_ID: 'alias/svc-b',
      VAULT_KMS_REGION: 'eu-west-1',
      VAULT_PREVIOUS_MASTER_KEYS: `${KEY},aws-kms:alias/svc-a,vault-transit:old`,
      VAULT_ADDR: 'https://vault.internal:8200/',
      VAULT_TOKEN: 'hvs.token',
      VAULT_DATA_KEY_CACHE_SECONDS: '60',
    });
    expect(config.vaultMasterKey).toBeNull();
    expect(config.vaultKms).toEqual({ keyId: 'alias/svc-b', region: 'eu-west-1', endpoint: null });
    expect(config.vaultPreviousMasterKeys).toEqual([
      { provider: 'env', key: KEY },
      { provider: 'aws-kms', keyId: 'alias/svc-a' },
      { provider: 'vault-transit', key: 'old' },
    ]);
    expect(config.vaultTransit).toEqual({
      address: 'https://vault.internal:8200',
      token: 'hvs.token',
      namespace: null,
      mount: 'transit',
      key: null,
    });
    expect(config.vaultDataKeyCacheSeconds).toBe(60);
  });

  it('reads a secret from the file NAME_FILE names, trimmed (container secrets)', () => {
    const config = loadConfig({
      VAULT_MASTER_KEY_PROVIDER: 'vault-transit',
      VAULT_ADDR: 'http://127.0.0.1:8200',
      VAULT_TRANSIT_KEY: 'svc',
      VAULT_TOKEN_FILE: file('token', '  hvs.from-a-file\n'),
      VAULT_PREVIOUS_MASTER_KEYS_FILE: file('previous', `${KEY}\n`),
      METRICS_TOKEN_FILE: file('metrics', `${'m'.repeat(40)}\n`),
    });
    expect(config.vaultTransit?.token).toBe('hvs.from-a-file');
    expect(config.vaultPreviousMasterKeys).toEqual([{ provider: 'env', key: KEY }]);
    expect(config.metricsToken).toBe('m'.repeat(40));
    expect(loadConfig({ VAULT_MASTER_KEY_FILE: file('master', `${KEY}\n`) }).vaultMasterKey).toBe(KEY);
  });

  it('marks every secret of docs/security.md as one, so each may come from a file; a setting that is no secret ignores NAME_FILE', () => {
    const secrets = configurationVariables()
      .filter((variable) => variable.secret)
      .map((variable) => variable.name)
      .sort();
    expect(secrets).toEqual([
      'DASHBOARD_OIDC_CLIENT_SECRET',
      'DATABASE_URL',
      'GOOGLE_PAY_AUTH_PRIVATE_KEY',
      'METRICS_TOKEN',
      'REPORTS_S3_SECRET_ACCESS_KEY',
      'VAULT_MASTER_KEY',
      'VAULT_PREVIOUS_MASTER_KEYS',
      'VAULT_TOKEN',
    ]);
    const doc = fs.readFileSync(path.join(import.meta.dirname, '..', '..', 'docs', 'configuration.md'), 'utf8');
    for (const name of secrets) expect(doc).toContain(`\`${name}_FILE\``);
    expect(loadConfig({ PORT_FILE: file('port', '9999') }).port).toBe(8080);
  });
});

describe('errors', () => {
  it('refuses a secret given both ways, naming both variables', () => {
    expect(refusal({ VAULT_MASTER_KEY: KEY, VAULT_MASTER_KEY_FILE: file('both', KEY) })).toBe(
      'VAULT_MASTER_KEY_FILE: is set and so is VAULT_MASTER_KEY: give the secret one way only',
    );
  });

  it('refuses a file it cannot read or that is empty, naming the file', () => {
    const missing = path.join(dir, 'missing');
    expect(refusal({ VAULT_MASTER_KEY_FILE: missing })).toBe(
      `VAULT_MASTER_KEY_FILE: cannot read the file "${missing}" (ENOENT)`,
    );
    expect(
      refusal({
        VAULT_TOKEN_FILE: file('empty', '\n'),
        VAULT_ADDR: 'http://127.0.0.1:1',
        VAULT_MASTER_KEY_PROVIDER: 'vault-transit',
        VAULT_TRANSIT_KEY: 'k',
      }),
    ).toMatch(/^VAULT_TOKEN_FILE: the file ".*empty" is empty$/);
  });

  it('refuses the settings a provider needs when they are missing', () => {
    expect(refusal({ VAULT_MASTER_KEY_PROVIDER: 'aws-kms' })).toBe(
      'VAULT_KMS_KEY_ID: is required when VAULT_MASTER_KEY_PROVIDER is aws-kms',
    );
    expect(refusal({ VAULT_MASTER_KEY_PROVIDER: 'vault-transit', VAULT_TOKEN: 't' })).toBe(
      'VAULT_ADDR: is required with a vault-transit master key',
    );
    expect(refusal({ VAULT_MASTER_KEY_PROVIDER: 'hsm' })).toMatch(
      /^VAULT_MASTER_KEY_PROVIDER: must be one of env, aws-kms, vault-transit/,
    );
    expect(refusal({ VAULT_MASTER_KEY_PROVIDER: 'aws-kms', VAULT_KMS_KEY_ID: 'k', VAULT_MASTER_KEY: KEY })).toMatch(
      /^VAULT_MASTER_KEY: is set, but VAULT_MASTER_KEY_PROVIDER is aws-kms/,
    );
  });

  it('requires https for the KMS and Vault endpoints in production, and no credentials in them', () => {
    const production = { ENVIRONMENT: 'production', VAULT_MASTER_KEY_PROVIDER: 'aws-kms', VAULT_KMS_KEY_ID: 'k' };
    expect(refusal({ ...production, VAULT_KMS_ENDPOINT: 'http://kms.internal' })).toBe(
      'VAULT_KMS_ENDPOINT: must be an https URL in production',
    );
    expect(
      refusal({
        VAULT_MASTER_KEY_PROVIDER: 'vault-transit',
        VAULT_TRANSIT_KEY: 'k',
        VAULT_TOKEN: 't',
        VAULT_ADDR: 'http://user:pass@127.0.0.1:8200',
      }),
    ).toBe('VAULT_ADDR: must not hold credentials');
  });

  it('quotes no secret in any refusal', () => {
    const marker = 'S3CRET-MARKER-0123456789';
    const cases: Array<Record<string, string>> = [
      { VAULT_MASTER_KEY: `${marker}==` },
      { VAULT_PREVIOUS_MASTER_KEYS: `${marker}==` },
      { VAULT_MASTER_KEY_FILE: file('bad-key', marker) },
      { METRICS_TOKEN: `short ${marker}` },
      { DATABASE_URL: `not a url ${marker}` },
      { DATABASE_URL: `mysql://u:${marker}@h/d` },
      { ENVIRONMENT: 'production', VAULT_MASTER_KEY: `${marker}`, VAULT_TOKEN: marker },
    ];
    for (const env of cases) expect(refusal(env)).not.toContain(marker);
  });
});
