import { createHash, createHmac } from 'node:crypto';
import { rootCertificates } from 'node:tls';
import { CompactEncrypt } from 'jose';
import type { RequestContext } from '../../context.ts';
import type { VaultForwardAuthenticationKind, VaultForwardConfigRow } from '../../db/schema-vault-forward.ts';
import { mleKey, openFieldValues, pemBlocks, type FieldValues } from './authentication-fields.ts';
import { SIGNATURE_DEFAULTS } from './definitions.ts';
import { refuseHeader } from './forward-request.ts';
import { anyMatches } from './host-rules.ts';
import type { RelayTls } from '../../lib/relay.ts';
import * as repo from './vault-forward-configs.repo.ts';
import { hostsOf } from './vault-forward-configs.schemas.ts';

/**
 * The authentication methods of `x-vault-forward-authentications`: each checked before anything
 * is sent (this merchant account's, its config's hosts covering the target, usable for this
 * request), then applied in the order given to the request about to leave. Their secrets are in
 * memory for this one forward only.
 */

export const MAX_AUTHENTICATIONS = 5;
const HEADER = 'x-vault-forward-authentications';

export interface ForwardAuthentication {
  id: string;
  kind: VaultForwardAuthenticationKind;
  values: FieldValues;
}

/** The request as it will leave, changed in place by each method in turn. */
export interface Outgoing {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body: string | null;
  tls: RelayTls | null;
}

const refuse = (message: string, type = 'value_error') => refuseHeader(HEADER, `${HEADER}: ${message}`, type);

/** Checks every named method against this merchant account, the target and the request; opens their fields. */
export async function loadAuthentications(
  ctx: RequestContext,
  ids: readonly string[],
  target: URL,
  hasBody: boolean,
  configs: readonly VaultForwardConfigRow[],
): Promise<ForwardAuthentication[]> {
  if (ids.length > MAX_AUTHENTICATIONS)
    throw refuse(`at most ${MAX_AUTHENTICATIONS} authentication methods per forward`);
  const twice = ids.find((id, i) => ids.indexOf(id) !== i);
  if (twice) throw refuse(`authentication method ${twice} is named twice`);
  const rows = await repo.authenticationsByIds(ctx.deps.db, ctx.merchantAccountId, ids);
  const host = target.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  const loaded: ForwardAuthentication[] = [];
  for (const [i, id] of ids.entries()) {
    const where = `authentication method ${i + 1} (${id})`;
    const row = rows.find((r) => r.id === id);
    // Another merchant account's method reads as unknown: nothing is learnt about other accounts.
    if (!row) throw refuse(`${where}: no such authentication method in this merchant account`, 'not_found');
    const config = configs.find((c) => c.id === row.config_id);
    const hosts = config ? hostsOf(config) : [];
    if (!anyMatches(host, hosts))
      throw refuse(
        `${where} belongs to the config ${config?.display_name ?? row.config_id} (${config?.definition_id ?? 'deleted'}), whose hosts (${hosts.join(', ') || 'none'}) do not include ${host}`,
      );
    if (row.kind === 'mtls' && target.protocol !== 'https:')
      throw refuse(`${where} is mutual TLS, which needs an https target`);
    if (row.kind === 'mtls' && loaded.some((a) => a.kind === 'mtls'))
      throw refuse(`${where}: a request presents one client certificate; name one mtls method`);
    if (row.kind === 'mle' && !hasBody) throw refuse(`${where} encrypts the body, and this request has none`);
    loaded.push({ id, kind: row.kind, values: await openFieldValues(ctx.deps.db, ctx.deps, row) });
  }
  return loaded;
}

/** HMAC-SHA256 over the request target, the date and the digest of the body as it is now (docs/vault-forward.md). */
function sign(out: Outgoing, values: FieldValues): void {
  const dateHeader = values.date_header ?? SIGNATURE_DEFAULTS.date_header;
  const digestHeader = values.digest_header ?? SIGNATURE_DEFAULTS.digest_header;
  const date = new Date().toUTCString();
  const digest = `SHA-256=${createHash('sha256')
    .update(out.body ?? '')
    .digest('base64')}`;
  const lines = [
    `(request-target): ${out.method.toLowerCase()} ${out.url.pathname}${out.url.search}`,
    `${dateHeader}: ${date}`,
    `${digestHeader}: ${digest}`,
  ];
  const signature = createHmac('sha256', values.secret!).update(lines.join('\n')).digest('base64');
  out.headers[dateHeader] = date;
  out.headers[digestHeader] = digest;
  out.headers[values.signature_header ?? SIGNATURE_DEFAULTS.signature_header] =
    `keyId="${values.key_id}",algorithm="hmac-sha256",headers="(request-target) ${dateHeader} ${digestHeader}",signature="${signature}"`;
}

/** The body as it is now, encrypted for the target as a compact JWE. */
async function encrypt(out: Outgoing, values: FieldValues): Promise<void> {
  const { key, alg, enc } = mleKey(values);
  const header = {
    alg,
    enc,
    cty: out.headers['content-type'] ?? 'application/json',
    ...(values.key_id ? { kid: values.key_id } : {}),
  };
  const jwe = await new CompactEncrypt(Buffer.from(out.body ?? '', 'utf8')).setProtectedHeader(header).encrypt(key);
  const field = values.body_field;
  out.body = field ? JSON.stringify({ [field]: jwe }) : jwe;
  out.headers['content-type'] = field ? 'application/json' : 'application/jose';
}

function presentCertificate(out: Outgoing, values: FieldValues): void {
  const extra = pemBlocks(values.ca_certificates ?? '');
  out.tls = {
    cert: values.certificate!,
    key: values.private_key!,
    ...(values.private_key_passphrase ? { passphrase: values.private_key_passphrase } : {}),
    ...(extra.length > 0 ? { ca: [...rootCertificates, ...extra] } : {}),
  };
}

/** Applies each method in the order given: a signature covers the body as the methods before it left it. */
export async function applyAuthentications(
  out: Outgoing,
  authentications: readonly ForwardAuthentication[],
): Promise<void> {
  for (const a of authentications) {
    if (a.kind === 'signature') sign(out, a.values);
    else if (a.kind === 'mle') await encrypt(out, a.values);
    else presentCertificate(out, a.values);
  }
}
