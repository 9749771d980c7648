import { createPrivateKey, createPublicKey, X509Certificate, type KeyObject } from 'node:crypto';
import type { Deps } from '../../context.ts';
import type { SealedJson } from '../../db/schema.ts';
import type { VaultForwardAuthenticationKind, VaultForwardAuthenticationRow } from '../../db/schema-vault-forward.ts';
import type { Executor } from '../../db/transaction.ts';
import { AppError, type ErrorDetail } from '../../errors/app-error.ts';
import { authenticationDefinition, MLE_ALGORITHMS, MLE_ENCRYPTIONS } from './definitions.ts';

/**
 * The fields of an authentication method: checked against its kind (well-formed PEM, a key that
 * matches its certificate, a safe algorithm), sealed by the vault when secret, opened for one
 * forward. Messages name keys, never values.
 */

export type FieldValues = Record<string, string>;

interface Problem {
  key: string;
  message: string;
}

function fieldsError(problems: Problem[]): AppError {
  const details: ErrorDetail[] = problems.map((p) => ({
    location: 'body',
    pointer: '/fields',
    message: `${p.key}: ${p.message}`,
    type: 'value_error',
  }));
  return new AppError(
    'bad_request',
    `The authentication fields are not valid: ${problems.map((p) => `${p.key} ${p.message}`).join('; ')}`,
    { details },
  );
}

/**
 * The body's key/value list merged into the current values (an empty value removes a key), with
 * unknown keys, keys sent twice and missing required fields refused.
 */
export function mergeFieldList(
  kind: VaultForwardAuthenticationKind,
  current: FieldValues,
  list: ReadonlyArray<{ key: string; value: string }>,
): FieldValues {
  const known = authenticationDefinition(kind).fields;
  const problems: Problem[] = [];
  const seen = new Set<string>();
  const merged: FieldValues = { ...current };
  for (const { key, value } of list) {
    if (!known.some((f) => f.key === key))
      problems.push({
        key,
        message: `is not a field of ${kind} authentication (fields: ${known.map((f) => f.key).join(', ')})`,
      });
    else if (seen.has(key)) problems.push({ key, message: 'is sent more than once' });
    seen.add(key);
    if (value.trim() === '') delete merged[key];
    else merged[key] = value;
  }
  for (const f of known)
    if (f.required && !merged[f.key] && !problems.some((p) => p.key === f.key))
      problems.push({ key: f.key, message: 'is required' });
  if (problems.length > 0) throw fieldsError(problems);
  return merged;
}

const HEADER_NAME = /^[a-z0-9!#$%&'*+.^_`|~-]{1,64}$/;

function signatureProblems(values: FieldValues): Problem[] {
  const problems: Problem[] = [];
  if (!/^[\x21\x23-\x5b\x5d-\x7e]{1,200}$/.test(values.key_id ?? ''))
    problems.push({
      key: 'key_id',
      message: 'must be 1 to 200 printable ASCII characters without spaces, quotes or backslashes',
    });
  if ((values.secret ?? '').length < 32) problems.push({ key: 'secret', message: 'must be at least 32 characters' });
  for (const key of ['signature_header', 'date_header', 'digest_header']) {
    const name = values[key];
    if (name !== undefined && !HEADER_NAME.test(name))
      problems.push({ key, message: 'must be an HTTP header name in lower case' });
  }
  return problems;
}

/** The client certificate, its key and the extra CAs of an mtls method; throws a problem naming the field. */
export function mtlsMaterial(values: FieldValues): { certificate: X509Certificate; key: KeyObject; ca: string[] } {
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(values.certificate ?? '');
  } catch {
    throw fieldsError([{ key: 'certificate', message: 'is not a PEM certificate' }]);
  }
  let key: KeyObject;
  try {
    key = createPrivateKey({
      key: values.private_key ?? '',
      format: 'pem',
      ...(values.private_key_passphrase ? { passphrase: values.private_key_passphrase } : {}),
    });
  } catch {
    throw fieldsError([
      {
        key: 'private_key',
        message: 'is not a PEM private key, or its passphrase (private_key_passphrase) is missing or wrong',
      },
    ]);
  }
  if (!certificate.checkPrivateKey(key))
    throw fieldsError([{ key: 'private_key', message: 'does not belong to the certificate' }]);
  const ca = pemBlocks(values.ca_certificates ?? '');
  for (const pem of ca) {
    try {
      new X509Certificate(pem);
    } catch {
      throw fieldsError([{ key: 'ca_certificates', message: 'must be PEM certificates' }]);
    }
  }
  return { certificate, key, ca };
}

const PEM_BEGIN = '-----BEGIN CERTIFICATE-----';
const PEM_END = '-----END CERTIFICATE-----';

/**
 * The PEM certificates of a field, in order: each from a BEGIN line to the first END line after it
 * (what `/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g` matched). A scan: that
 * pattern read to the end of the text from every BEGIN line without an END line after it (time
 * quadratic in the field; issue 48), where the scan stops at the first one.
 */
export function pemBlocks(text: string): string[] {
  const blocks: string[] = [];
  for (let begin = text.indexOf(PEM_BEGIN); begin >= 0; ) {
    // At least one character between the two lines, as `+?` required.
    const end = text.indexOf(PEM_END, begin + PEM_BEGIN.length + 1);
    if (end < 0) break;
    blocks.push(text.slice(begin, end + PEM_END.length));
    begin = text.indexOf(PEM_BEGIN, end + PEM_END.length);
  }
  return blocks;
}

const CURVES = new Set(['prime256v1', 'secp384r1', 'secp521r1']);

/** The target's public key of an mle method, checked against the algorithm; throws a problem naming the field. */
export function mleKey(values: FieldValues): { key: KeyObject; alg: string; enc: string } {
  const alg = values.alg ?? MLE_ALGORITHMS[0];
  const enc = values.enc ?? MLE_ENCRYPTIONS[0];
  if (!(MLE_ALGORITHMS as readonly string[]).includes(alg))
    throw fieldsError([{ key: 'alg', message: `must be one of ${MLE_ALGORITHMS.join(', ')}` }]);
  if (!(MLE_ENCRYPTIONS as readonly string[]).includes(enc))
    throw fieldsError([{ key: 'enc', message: `must be one of ${MLE_ENCRYPTIONS.join(', ')}` }]);
  const pem = values.public_key ?? '';
  if (/PRIVATE KEY/.test(pem))
    throw fieldsError([{ key: 'public_key', message: "must be the target's public key, not a private key" }]);
  let key: KeyObject;
  try {
    key = pem.includes('BEGIN CERTIFICATE')
      ? new X509Certificate(pem).publicKey
      : createPublicKey({ key: pem, format: 'pem' });
  } catch {
    throw fieldsError([{ key: 'public_key', message: 'is not a PEM public key or certificate' }]);
  }
  const type = key.asymmetricKeyType;
  const details = key.asymmetricKeyDetails ?? {};
  const rsaOk = type === 'rsa' && (details.modulusLength ?? 0) >= 2048;
  const ecOk = (type === 'ec' && CURVES.has(details.namedCurve ?? '')) || type === 'x25519';
  if (alg.startsWith('RSA') ? !rsaOk : !ecOk) {
    throw fieldsError([
      {
        key: 'public_key',
        message: alg.startsWith('RSA')
          ? `must be an RSA key of 2048 bits or more for ${alg}`
          : `must be an EC key (P-256, P-384, P-521) or X25519 for ${alg}`,
      },
    ]);
  }
  return { key, alg, enc };
}

/** Checks the values of a kind and answers the label (a hint that is no secret). */
export function checkFieldValues(kind: VaultForwardAuthenticationKind, values: FieldValues): string {
  if (kind === 'signature') {
    const problems = signatureProblems(values);
    if (problems.length > 0) throw fieldsError(problems);
    return `key ${values.key_id}`;
  }
  if (kind === 'mtls') {
    const { certificate } = mtlsMaterial(values);
    const expires = new Date(certificate.validTo);
    if (expires.getTime() <= Date.now())
      throw fieldsError([{ key: 'certificate', message: `expired on ${expires.toISOString().slice(0, 10)}` }]);
    return `${certificate.subject.split('\n').join(', ')} (expires ${expires.toISOString().slice(0, 10)})`;
  }
  const { key, alg, enc } = mleKey(values);
  return `${alg} ${enc}, ${key.asymmetricKeyType?.toUpperCase()} key${values.key_id ? ` ${values.key_id}` : ''}`;
}

const bindingOf = (id: string, key: string) => ({
  table: 'vault_forward_authentications',
  column: `field:${key}`,
  rowId: id,
});

/** Splits the values by their `secret` flag and seals each secret one, bound to its row and key. */
export async function sealFieldValues(
  db: Executor,
  deps: Deps,
  merchantAccountId: string,
  id: string,
  kind: VaultForwardAuthenticationKind,
  values: FieldValues,
) {
  const secret = new Set(
    authenticationDefinition(kind)
      .fields.filter((f) => f.secret)
      .map((f) => f.key),
  );
  const fields: FieldValues = {};
  const sealed: Record<string, SealedJson> = {};
  for (const [key, value] of Object.entries(values)) {
    if (secret.has(key)) sealed[key] = await deps.vault.encrypt(db, merchantAccountId, value, bindingOf(id, key));
    else fields[key] = value;
  }
  return { fields: JSON.stringify(fields), sealed_fields: JSON.stringify(sealed) };
}

/** Every value of a method, secrets opened: for one forward, or to merge an update. */
export async function openFieldValues(
  db: Executor,
  deps: Deps,
  row: VaultForwardAuthenticationRow,
): Promise<FieldValues> {
  const values: FieldValues = { ...row.fields };
  for (const [key, sealed] of Object.entries(row.sealed_fields))
    values[key] = await deps.vault.decrypt(db, row.merchant_account_id, sealed, bindingOf(row.id, key));
  return values;
}
