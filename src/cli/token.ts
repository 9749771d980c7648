import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { SignJWT } from 'jose';
import { describePrivateKeyPem } from '../modules/api-key-pairs/key-material.ts';

export interface MintOptions {
  privateKeyPem: string;
  scopes: string[];
  lifetimeSeconds: number;
  merchantAccountId?: string;
  embed?: Record<string, unknown>;
  checkoutSessionId?: string;
  now?: number;
}

/**
 * Signs a bearer token the way the public client library does: ES512, `kid` = RFC 7638 thumbprint,
 * claims `scopes`, `iat`, `nbf` = `iat`, `exp`, `jti`, `iss`. `merchant_account_id` is this
 * server's extension for curl users (see docs/decisions.md).
 */
export async function mintToken(options: MintOptions): Promise<string> {
  const { privateKey, thumbprint } = await describePrivateKeyPem(options.privateKeyPem);
  const iat = Math.floor((options.now ?? Date.now()) / 1000);
  const claims: Record<string, unknown> = { scopes: options.scopes };
  if (options.merchantAccountId) claims.merchant_account_id = options.merchantAccountId;
  if (options.embed) claims.embed = options.embed;
  if (options.checkoutSessionId) claims.checkout_session_id = options.checkoutSessionId;
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'ES512', typ: 'JWT', kid: thumbprint })
    .setIssuedAt(iat)
    .setNotBefore(iat)
    .setExpirationTime(iat + options.lifetimeSeconds)
    .setJti(randomUUID())
    .setIssuer('svc-cli')
    .sign(privateKey);
}

export function readKeyFile(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`cannot read the private key file ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}
