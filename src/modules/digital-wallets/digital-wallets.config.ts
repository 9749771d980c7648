import { createPublicKey, X509Certificate, type JsonWebKey, type KeyObject } from 'node:crypto';
import { ConfigError, customSetting, defineGroup, integerSetting, read, type Env } from '../../lib/settings.ts';

/** Digital wallets: the keys and certificates Apple Pay, Google Pay and Paze tokens are checked with. */

export interface GooglePayRootSigningKey {
  keyValue: string;
  protocolVersion: string;
  keyExpiration?: string;
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
function googleRootKeys(env: Env, name: string): GooglePayRootSigningKey[] {
  const raw = read(env, name);
  if (raw === undefined) return [];
  let keys: unknown;
  try {
    keys = (JSON.parse(raw) as { keys?: unknown }).keys;
  } catch {
    throw new ConfigError(
      name,
      'must be the JSON Google publishes: {"keys":[{"keyValue":"...","protocolVersion":"ECv2","keyExpiration":"..."}]}',
    );
  }
  const valid =
    Array.isArray(keys) && keys.every((k) => typeof k?.keyValue === 'string' && typeof k?.protocolVersion === 'string');
  if (!valid) throw new ConfigError(name, 'must list keys with keyValue and protocolVersion');
  return keys as GooglePayRootSigningKey[];
}

/** An RSA public key of at least 2048 bits as SPKI PEM, from PEM (key or certificate) or a JWK. */
function rsaSpki(name: string, source: string | JsonWebKey): string {
  let key: KeyObject;
  try {
    key =
      typeof source === 'string' && source.includes('CERTIFICATE')
        ? new X509Certificate(source).publicKey
        : typeof source === 'string'
          ? createPublicKey(source)
          : createPublicKey({ key: source, format: 'jwk' });
  } catch {
    throw new ConfigError(name, 'holds a key that does not parse');
  }
  if (key.asymmetricKeyType !== 'rsa' || (key.asymmetricKeyDetails?.modulusLength ?? 0) < 2048)
    throw new ConfigError(name, 'must hold RSA public keys of at least 2048 bits (Paze signs with RS256)');
  return key.export({ type: 'spki', format: 'pem' }).toString();
}

/** Paze's signing keys: PEM public keys or certificates, or a JWKS (`{"keys":[{"kty":"RSA","kid":…,"n":…,"e":…}]}`). */
function pazeSigningKeys(env: Env, name: string): Array<{ kid: string | null; spki: string }> {
  const raw = read(env, name);
  if (raw === undefined) return [];
  if (raw.trimStart().startsWith('{')) {
    let keys: unknown;
    try {
      keys = (JSON.parse(raw) as { keys?: unknown }).keys;
    } catch {
      throw new ConfigError(
        name,
        'must be PEM public keys or a JWKS ({"keys":[{"kty":"RSA","kid":"...","n":"...","e":"AQAB"}]})',
      );
    }
    if (!Array.isArray(keys) || keys.length === 0) throw new ConfigError(name, 'must list keys in "keys"');
    return keys.map((jwk: JsonWebKey & { kid?: unknown }) => ({
      kid: typeof jwk?.kid === 'string' ? jwk.kid : null,
      spki: rsaSpki(name, jwk),
    }));
  }
  const blocks = raw.match(/-----BEGIN (PUBLIC KEY|RSA PUBLIC KEY|CERTIFICATE)-----[\s\S]+?-----END \1-----/g) ?? [];
  if (blocks.length === 0)
    throw new ConfigError(name, 'must be PEM public keys (-----BEGIN PUBLIC KEY-----) or certificates, or a JWKS');
  return blocks.map((block) => ({ kid: null, spki: rsaSpki(name, block) }));
}

/** Optional text of at most `max` characters. */
function boundedText(env: Env, name: string, max: number): string | null {
  const value = read(env, name);
  if (value !== undefined && value.length > max)
    throw new ConfigError(name, `must be at most ${max} characters, got ${value.length}`);
  return value ?? null;
}

const PAZE_CLIENT =
  "Digital wallets: the Paze client onboarded with Paze, answered by `POST /digital-wallets/paze/session`; a wallet's `extra_configuration.client_id` / `client_name` wins";

export const walletSettings = defineGroup('Digital wallets', {
  walletTokenMaxAgeSeconds: integerSetting('WALLET_TOKEN_MAX_AGE_SECONDS', {
    default: 300,
    min: 10,
    max: 3600,
    description:
      "Digital wallets: how old an Apple Pay token's signing time may be (10 to 3600); older tokens are refused with 400",
  }),
  applePayRootCertificates: customSetting(
    {
      name: 'APPLE_PAY_ROOT_CERTIFICATES',
      default: 'empty',
      description:
        'Digital wallets: PEM root certificates trusted for Apple Pay token signatures in addition to the built-in Apple Root CA - G3',
    },
    (env) => pemCertificates(env, 'APPLE_PAY_ROOT_CERTIFICATES'),
  ),
  googlePayRootSigningKeys: customSetting(
    {
      name: 'GOOGLE_PAY_ROOT_SIGNING_KEYS',
      default: 'empty',
      description:
        'Digital wallets: Google\'s published root signing keys JSON (`{"keys":[…]}`, from Google\'s `paymentmethodtoken/keys.json`); required in production to accept Google Pay tokens. The sandbox also trusts its own test root',
    },
    (env) => googleRootKeys(env, 'GOOGLE_PAY_ROOT_SIGNING_KEYS'),
  ),
  /** PEM EC P-256 key that signs the Google Pay session's token (authJwt); null: sandbox key, none in production. */
  googlePayAuthPrivateKey: customSetting(
    {
      name: 'GOOGLE_PAY_AUTH_PRIVATE_KEY',
      secret: true,
      default: 'sandbox key',
      description:
        'Digital wallets: PEM EC P-256 key that signs the `token` (authJwt) of `POST /digital-wallets/google/session`; required in production for Google Pay sessions',
    },
    (env) => read(env, 'GOOGLE_PAY_AUTH_PRIVATE_KEY') ?? null,
  ),
  pazeClientId: customSetting(
    {
      name: 'PAZE_CLIENT_ID',
      default: 'unset (simulated in the sandbox)',
      description: `${PAZE_CLIENT} (at most 50 characters)`,
    },
    (env) => boundedText(env, 'PAZE_CLIENT_ID', 50),
  ),
  pazeClientName: customSetting(
    {
      name: 'PAZE_CLIENT_NAME',
      default: 'unset (simulated in the sandbox)',
      description: `${PAZE_CLIENT} (at most 255 characters)`,
    },
    (env) => boundedText(env, 'PAZE_CLIENT_NAME', 255),
  ),
  pazeSigningKeys: customSetting(
    {
      name: 'PAZE_SIGNING_KEYS',
      default: 'empty',
      description:
        'Digital wallets: Paze\'s RS256 signing public keys, PEM (keys or certificates) or a JWKS `{"keys":[{"kty":"RSA","kid":…,"n":…,"e":…}]}` (RSA ≥ 2048 bits); required in production to accept Paze payments. The sandbox also trusts its simulated Paze\'s key',
    },
    (env) => pazeSigningKeys(env, 'PAZE_SIGNING_KEYS'),
  ),
});
