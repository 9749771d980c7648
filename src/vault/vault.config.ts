import {
  ConfigError,
  customSetting,
  defineGroup,
  type Env,
  type Environment,
  integerSetting,
  oneOf,
  read,
} from '../lib/settings.ts';

/**
 * The vault's master keys (docs/security.md, "Key hierarchy"): where the key-encryption key lives
 * (decision 0140). `env`: VAULT_MASTER_KEY itself (the sandbox and small installs); `aws-kms`: a
 * KMS key that never leaves AWS; `vault-transit`: a key of HashiCorp Vault's transit engine.
 */

export const MASTER_KEY_PROVIDERS = ['env', 'aws-kms', 'vault-transit'] as const;
export type MasterKeyProviderName = (typeof MASTER_KEY_PROVIDERS)[number];

/** A master key of VAULT_PREVIOUS_MASTER_KEYS: still opens what it wrapped until a rotation has moved it. */
export type PreviousMasterKey =
  | { provider: 'env'; key: string }
  | { provider: 'aws-kms'; keyId: string }
  | { provider: 'vault-transit'; key: string };

export interface AwsKmsSettings {
  /** The current key (id, ARN or alias) when the provider is aws-kms; null otherwise. */
  keyId: string | null;
  /** Null: the region of the key's ARN, else the AWS SDK's default (AWS_REGION). */
  region: string | null;
  /** Null: AWS's own endpoint. A local KMS (tests) or a VPC endpoint otherwise. */
  endpoint: string | null;
}

export interface VaultTransitSettings {
  address: string;
  token: string;
  namespace: string | null;
  mount: string;
  /** The current key's name when the provider is vault-transit; null otherwise. */
  key: string | null;
}

function masterKey(name: string, value: string): string {
  if (Buffer.from(value.trim(), 'base64').length !== 32)
    throw new ConfigError(name, 'must be 32 random bytes in base64 (for example: openssl rand -base64 32)');
  return value.trim();
}

const providerOf = (env: Env) => oneOf(env, 'VAULT_MASTER_KEY_PROVIDER', 'env', MASTER_KEY_PROVIDERS);

function previousKeys(env: Env): PreviousMasterKey[] {
  return (read(env, 'VAULT_PREVIOUS_MASTER_KEYS') ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry): PreviousMasterKey => {
      if (entry.startsWith('aws-kms:')) return { provider: 'aws-kms', keyId: entry.slice('aws-kms:'.length) };
      if (entry.startsWith('vault-transit:')) {
        const key = entry.slice('vault-transit:'.length);
        if (!isName(key, '_.-'))
          throw new ConfigError(
            'VAULT_PREVIOUS_MASTER_KEYS',
            'a vault-transit: entry must name a transit key (letters, digits, _ . -)',
          );
        return { provider: 'vault-transit', key };
      }
      return { provider: 'env', key: masterKey('VAULT_PREVIOUS_MASTER_KEYS', entry) };
    });
}

/** An operator-chosen endpoint: http(s), no credentials in it; https in production. */
function endpoint(env: Env, name: string, environment: Environment): string | null {
  const raw = read(env, name);
  if (raw === undefined) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, 'must be an http(s) URL');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && environment !== 'production'))
    throw new ConfigError(
      name,
      environment === 'production' ? 'must be an https URL in production' : 'must be an http(s) URL',
    );
  if (url.username || url.password) throw new ConfigError(name, 'must not hold credentials');
  return raw.endsWith('/') ? raw.slice(0, -1) : raw;
}

/** Letters, digits and `extra`, 1 to 128 of them (no pattern: a character test). */
function isName(value: string, extra: string): boolean {
  if (value.length < 1 || value.length > 128) return false;
  for (const char of value) {
    const alnum = (char >= 'a' && char <= 'z') || (char >= 'A' && char <= 'Z') || (char >= '0' && char <= '9');
    if (!alnum && !extra.includes(char)) return false;
  }
  return true;
}

function transitSettings(env: Env, environment: Environment): VaultTransitSettings | null {
  const used = providerOf(env) === 'vault-transit' || previousKeys(env).some((key) => key.provider === 'vault-transit');
  if (!used) return null;
  const address = endpoint(env, 'VAULT_ADDR', environment);
  if (address === null) throw new ConfigError('VAULT_ADDR', 'is required with a vault-transit master key');
  const token = read(env, 'VAULT_TOKEN');
  if (token === undefined)
    throw new ConfigError('VAULT_TOKEN', 'is required with a vault-transit master key (or VAULT_TOKEN_FILE)');
  const mount = read(env, 'VAULT_TRANSIT_MOUNT') ?? 'transit';
  if (!isName(mount, '_-/') || mount.startsWith('/') || mount.endsWith('/') || mount.includes('//'))
    throw new ConfigError('VAULT_TRANSIT_MOUNT', `must be a mount path such as transit, got "${mount}"`);
  const key = read(env, 'VAULT_TRANSIT_KEY') ?? null;
  if (providerOf(env) === 'vault-transit' && key === null)
    throw new ConfigError('VAULT_TRANSIT_KEY', 'is required when VAULT_MASTER_KEY_PROVIDER is vault-transit');
  if (key !== null && !isName(key, '_.-'))
    throw new ConfigError('VAULT_TRANSIT_KEY', `must be a transit key name (letters, digits, _ . -), got "${key}"`);
  return { address, token, namespace: read(env, 'VAULT_NAMESPACE') ?? null, mount, key };
}

export const vaultSettings = defineGroup('Vault', {
  vaultMasterKeyProvider: customSetting(
    {
      name: 'VAULT_MASTER_KEY_PROVIDER',
      default: '`env`',
      description:
        'Where the master key lives: `env` (`VAULT_MASTER_KEY`), `aws-kms` (`VAULT_KMS_KEY_ID`) or `vault-transit` (`VAULT_TRANSIT_KEY`); docs/security.md, "Key hierarchy"',
    },
    providerOf,
  ),
  /** Current vault master key (base64 of 32 bytes); null in the sandbox means a key file in DATA_DIR, or another provider. */
  vaultMasterKey: customSetting(
    {
      name: 'VAULT_MASTER_KEY',
      secret: true,
      default: 'sandbox: generated file `DATA_DIR/vault_master_key`; production: required with `env`',
      description:
        "With `VAULT_MASTER_KEY_PROVIDER=env`: 32 random bytes in base64 (`openssl rand -base64 32`), the key that wraps every merchant's card data keys, and the instance's cursor and report download signing secrets",
    },
    (env, environment) => {
      const current = read(env, 'VAULT_MASTER_KEY');
      const provider = providerOf(env);
      if (current !== undefined && provider !== 'env')
        throw new ConfigError(
          'VAULT_MASTER_KEY',
          `is set, but VAULT_MASTER_KEY_PROVIDER is ${provider}: while \`svc keys rotate-vault\` moves the data keys, give the old key in VAULT_PREVIOUS_MASTER_KEYS instead`,
        );
      if (current === undefined && environment === 'production' && provider === 'env') {
        throw new ConfigError(
          'VAULT_MASTER_KEY',
          'is required in production (32 random bytes in base64); card data is encrypted under it',
        );
      }
      return current === undefined ? null : masterKey('VAULT_MASTER_KEY', current);
    },
  ),
  /** Earlier master keys, still able to unwrap data keys during a rotation. */
  vaultPreviousMasterKeys: customSetting(
    {
      name: 'VAULT_PREVIOUS_MASTER_KEYS',
      secret: true,
      default: 'empty',
      description:
        'Comma-separated older master keys, still accepted while `svc keys rotate-vault` re-wraps: base64 keys, `aws-kms:<key id or ARN>`, `vault-transit:<key name>`',
    },
    previousKeys,
  ),
  vaultKms: customSetting(
    [
      {
        name: 'VAULT_KMS_KEY_ID',
        default: 'unset',
        description:
          'With `aws-kms`: the KMS key (id, ARN or `alias/...`) that generates and wraps the data keys; credentials come from the AWS SDK default chain (environment, profile, instance or task role)',
      },
      {
        name: 'VAULT_KMS_REGION',
        default: "the key ARN's region, else `AWS_REGION`",
        description: 'The KMS region',
      },
      {
        name: 'VAULT_KMS_ENDPOINT',
        default: "AWS's",
        description: 'Another KMS endpoint (a VPC endpoint; a local KMS in tests): https in production',
      },
    ],
    (env, environment): AwsKmsSettings => {
      const keyId = read(env, 'VAULT_KMS_KEY_ID') ?? null;
      if (providerOf(env) === 'aws-kms' && keyId === null)
        throw new ConfigError('VAULT_KMS_KEY_ID', 'is required when VAULT_MASTER_KEY_PROVIDER is aws-kms');
      return {
        keyId,
        region: read(env, 'VAULT_KMS_REGION') ?? null,
        endpoint: endpoint(env, 'VAULT_KMS_ENDPOINT', environment),
      };
    },
  ),
  vaultTransit: customSetting(
    [
      {
        name: 'VAULT_ADDR',
        default: 'unset',
        description:
          'With `vault-transit`: the HashiCorp Vault server (`https://vault.internal:8200`; https in production)',
      },
      {
        name: 'VAULT_TOKEN',
        secret: true,
        default: 'unset',
        description:
          'With `vault-transit`: a token allowed `encrypt`, `decrypt` and reading the key on the transit mount',
      },
      { name: 'VAULT_NAMESPACE', default: 'unset', description: 'With `vault-transit`: a Vault Enterprise namespace' },
      {
        name: 'VAULT_TRANSIT_MOUNT',
        default: '`transit`',
        description: 'With `vault-transit`: the transit mount path',
      },
      {
        name: 'VAULT_TRANSIT_KEY',
        default: 'unset',
        description: 'With `vault-transit`: the transit key (`aes256-gcm96`) that wraps the data keys',
      },
    ],
    transitSettings,
  ),
  vaultDataKeyCacheSeconds: integerSetting('VAULT_DATA_KEY_CACHE_SECONDS', {
    default: 300,
    min: 1,
    max: 86_400,
    description:
      'How long an unwrapped data key stays in memory before the master key (KMS, Vault) is asked again (1 to 86400)',
  }),
});
