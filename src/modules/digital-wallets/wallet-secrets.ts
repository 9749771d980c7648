import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import type { Deps } from '../../context.ts';
import type { DigitalWalletPatch, DigitalWalletProvider, DigitalWalletRow } from '../../db/schema-digital-wallets.ts';
import type { Executor } from '../../db/transaction.ts';
import { fieldRefusal } from '../../errors/app-error.ts';
import type { CreateDigitalWalletBody } from './digital-wallets.schemas.ts';

/**
 * The merchant's own wallet keys: checked when sent, sealed by the vault as one JSON bound to the
 * wallet row, opened only for a token decryption or a merchant session. Never returned or logged.
 */

export interface WalletSecrets {
  payment_processing_private_key?: string;
  merchant_identity_certificate?: string;
  merchant_identity_private_key?: string;
}
const SECRET_FIELDS = [
  'payment_processing_private_key',
  'merchant_identity_certificate',
  'merchant_identity_private_key',
] as const;
type KeyFields = Pick<
  CreateDigitalWalletBody,
  (typeof SECRET_FIELDS)[number] | 'apple_merchant_identifier' | 'google_merchant_id'
>;

const binding = (id: string) => ({ table: 'digital_wallets', column: 'secrets', rowId: id });
const bad = (field: string, message: string) => fieldRefusal('body', `/${field}`, message);

function privateKeyOf(pem: string, field: string): KeyObject {
  try {
    return createPrivateKey(pem);
  } catch {
    throw bad(field, `${field} must be a private key in PEM (-----BEGIN PRIVATE KEY-----)`);
  }
}

/** An EC P-256 private key from PEM (Apple Pay, Google Pay), or a 400 naming the field. */
export function ecPrivateKey(pem: string, field: string): KeyObject {
  const key = privateKeyOf(pem, field);
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1')
    throw bad(field, `${field} must be an elliptic curve P-256 (prime256v1) key`);
  return key;
}

/** An RSA private key of at least 2048 bits from PEM (Paze: the securedPayload is RSA-OAEP-256), or a 400 naming the field. */
export function rsaPrivateKey(pem: string, field: string): KeyObject {
  const key = privateKeyOf(pem, field);
  if (key.asymmetricKeyType !== 'rsa' || (key.asymmetricKeyDetails?.modulusLength ?? 0) < 2048)
    throw bad(
      field,
      `${field} must be an RSA key of at least 2048 bits for a Paze wallet (Paze encrypts with RSA-OAEP-256)`,
    );
  return key;
}

/** The payment processing key of a wallet of `provider`: RSA for Paze, EC P-256 otherwise. */
export const processingKeyOf = (
  provider: DigitalWalletProvider,
  pem: string,
  field = 'payment_processing_private_key',
) => (provider === 'paze' ? rsaPrivateKey(pem, field) : ecPrivateKey(pem, field));

/** The identity certificate's expiry after checking that certificate and key belong together. */
function identityExpiry(certificate: string, key: string): Date {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(certificate);
  } catch {
    throw bad(
      'merchant_identity_certificate',
      'merchant_identity_certificate must be an X.509 certificate in PEM (-----BEGIN CERTIFICATE-----)',
    );
  }
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(key);
  } catch {
    throw bad('merchant_identity_private_key', 'merchant_identity_private_key must be a private key in PEM');
  }
  if (!cert.checkPrivateKey(privateKey))
    throw bad(
      'merchant_identity_private_key',
      'merchant_identity_private_key is not the key of merchant_identity_certificate',
    );
  return new Date(cert.validTo);
}

/** Which key fields a provider takes; the others are refused by name. */
function checkProviderFields(provider: DigitalWalletProvider, body: Partial<KeyFields>): void {
  const allowed: Record<DigitalWalletProvider, string[]> = {
    apple: [
      'payment_processing_private_key',
      'apple_merchant_identifier',
      'merchant_identity_certificate',
      'merchant_identity_private_key',
    ],
    google: ['payment_processing_private_key', 'google_merchant_id'],
    'click-to-pay': [],
    paze: ['payment_processing_private_key'],
  };
  for (const field of [...SECRET_FIELDS, 'apple_merchant_identifier', 'google_merchant_id'] as const) {
    if (body[field] !== undefined && body[field] !== null && !allowed[provider].includes(field))
      throw bad(field, `${field} does not apply to ${provider} wallets`);
  }
  if ((body.merchant_identity_certificate === undefined) !== (body.merchant_identity_private_key === undefined)) {
    throw bad(
      'merchant_identity_private_key',
      'Send merchant_identity_certificate and merchant_identity_private_key together',
    );
  }
}

async function openSecrets(
  db: Executor,
  deps: Deps,
  row: Pick<DigitalWalletRow, 'merchant_account_id' | 'id' | 'secrets_ciphertext' | 'secrets_key_id'>,
): Promise<WalletSecrets> {
  if (!row.secrets_ciphertext || !row.secrets_key_id) return {};
  const text = await deps.vault.decrypt(
    db,
    row.merchant_account_id,
    { ciphertext: row.secrets_ciphertext, keyId: row.secrets_key_id },
    binding(row.id),
  );
  return JSON.parse(text) as WalletSecrets;
}

/** The secrets of a stored wallet (a token decryption, a merchant session). */
export const walletSecrets = openSecrets;

type Current = Pick<
  DigitalWalletRow,
  | 'merchant_account_id'
  | 'id'
  | 'provider'
  | 'secrets_ciphertext'
  | 'secrets_key_id'
  | 'apple_merchant_identifier'
  | 'google_merchant_id'
  | 'payment_processing_key_configured'
>;

/**
 * The key columns of a create or update: checks what was sent, merges it over the stored secrets
 * (null clears a field, omitted keeps it) and seals the result. Runs in the caller's transaction.
 */
export async function keyColumns(
  tx: Executor,
  deps: Deps,
  current: Current,
  body: Partial<KeyFields>,
): Promise<DigitalWalletPatch> {
  checkProviderFields(current.provider, body);
  if (body.payment_processing_private_key) processingKeyOf(current.provider, body.payment_processing_private_key);
  const expiry =
    body.merchant_identity_certificate && body.merchant_identity_private_key
      ? identityExpiry(body.merchant_identity_certificate, body.merchant_identity_private_key)
      : null;
  const patch: DigitalWalletPatch = {};
  if (body.apple_merchant_identifier !== undefined) patch.apple_merchant_identifier = body.apple_merchant_identifier;
  if (body.google_merchant_id !== undefined) patch.google_merchant_id = body.google_merchant_id;
  const touched = SECRET_FIELDS.filter((f) => body[f] !== undefined);
  const secrets = touched.length > 0 ? await openSecrets(tx, deps, current) : null;
  if (secrets) {
    for (const field of touched) {
      if (body[field] === null) delete secrets[field];
      else secrets[field] = body[field]!;
    }
    const empty = Object.keys(secrets).length === 0;
    const sealed = empty
      ? null
      : await deps.vault.encrypt(tx, current.merchant_account_id, JSON.stringify(secrets), binding(current.id));
    Object.assign(patch, {
      secrets_ciphertext: sealed?.ciphertext ?? null,
      secrets_key_id: sealed?.keyId ?? null,
      payment_processing_key_configured: Boolean(secrets.payment_processing_private_key),
    });
    if (body.merchant_identity_certificate !== undefined) patch.identity_certificate_expires_at = expiry;
  }
  const hasKey = patch.payment_processing_key_configured ?? current.payment_processing_key_configured;
  const appleId =
    patch.apple_merchant_identifier !== undefined ? patch.apple_merchant_identifier : current.apple_merchant_identifier;
  const googleId = patch.google_merchant_id !== undefined ? patch.google_merchant_id : current.google_merchant_id;
  if (hasKey && current.provider === 'apple' && !appleId)
    throw bad(
      'apple_merchant_identifier',
      'apple_merchant_identifier is required with an Apple Pay payment processing key (it enters the key derivation)',
    );
  if (hasKey && current.provider === 'google' && !googleId)
    throw bad(
      'google_merchant_id',
      'google_merchant_id is required with a Google Pay private key (tokens are made for merchant:<id>)',
    );
  return patch;
}
