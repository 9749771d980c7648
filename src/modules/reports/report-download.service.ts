import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Deps } from '../../context.ts';
import { forbidden, notFound } from '../../errors/app-error.ts';
import { openInstanceSecret, type InstanceSecret } from '../../vault/instance-secrets.ts';
import * as repo from './reports.repo.ts';
import { reportStorage } from './storage/report-storage.ts';

/**
 * Signed download URLs: HMAC-SHA256 over (merchant account, execution, expiry) with an
 * instance-wide secret every process shares through the database, sealed by the vault's master key
 * (src/vault/instance-secrets.ts). The URL is the credential, so it needs no bearer token; changing
 * any part of it, or using it after its expiry, is 403.
 */
const SECRET_KEY = 'report_download_secret' satisfies InstanceSecret;

function signature(secret: Buffer, merchantAccountId: string, executionId: string, expires: number): string {
  return createHmac('sha256', secret)
    .update(`report-download\n${merchantAccountId}\n${executionId}\n${expires}`)
    .digest('base64url');
}

const secrets = new WeakMap<Deps, Promise<Buffer>>();

/**
 * The signing secret; read it before opening a transaction (PGlite has one session: a read inside
 * would wait on itself). It never changes once stored, so each process reads it once and keeps it
 * (one entry per runtime; a failed read is tried again): checking a download URL, a forged one
 * above all, costs no statement.
 */
export function downloadSecret(deps: Deps): Promise<Buffer> {
  let secret = secrets.get(deps);
  if (!secret) {
    secret = openInstanceSecret(deps.db, deps.keyring, SECRET_KEY);
    secrets.set(deps, secret);
    secret.catch(() => secrets.delete(deps));
  }
  return secret;
}

export function signDownload(
  deps: Deps,
  secret: Buffer,
  merchantAccountId: string,
  executionId: string,
  expiresAt: Date,
): string {
  const expires = Math.floor(expiresAt.getTime() / 1000);
  const query = new URLSearchParams({
    merchant_account_id: merchantAccountId,
    expires: String(expires),
    signature: signature(secret, merchantAccountId, executionId, expires),
  });
  return `${deps.config.publicUrl}/report-executions/${executionId}/report.csv.gz?${query.toString()}`;
}

export interface DownloadQuery {
  merchant_account_id: string;
  expires: number;
  signature: string;
}

export interface Download {
  fileName: string;
  body: Readable;
}

/** Checks the signature and expiry, then streams the stored file. */
export async function openDownload(
  deps: Deps,
  executionId: string,
  query: DownloadQuery,
  now = new Date(),
): Promise<Download> {
  const secret = await downloadSecret(deps);
  const expected = Buffer.from(signature(secret, query.merchant_account_id, executionId, query.expires));
  const given = Buffer.from(query.signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    throw forbidden('The download URL is not valid: its signature does not match; create a new URL');
  if (now.getTime() > query.expires * 1000)
    throw forbidden(
      'The download URL has expired; create a new one with POST /reports/{report_id}/executions/{report_execution_id}/url',
    );
  const row = await repo.findExecution(deps.db, query.merchant_account_id, executionId);
  const body = row?.file_key ? await reportStorage(deps.config).get(row.file_key) : null;
  if (!row || !body) throw notFound('report file', executionId);
  return {
    fileName: `${row.name.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 80) || 'report'}-${executionId}.csv.gz`,
    body,
  };
}
