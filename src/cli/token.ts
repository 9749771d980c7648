import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
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
 * server's extension for curl users (decision 0004).
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

export function readKeyFile(file: string, defaultFile?: string): string {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      // DATA_DIR is relative to the current directory: run from elsewhere, ./data is another folder.
      const where =
        defaultFile && path.resolve(file) !== path.resolve(defaultFile)
          ? ` The default key is ${path.resolve(defaultFile)}.`
          : '';
      throw new Error(
        `no private key file at ${path.resolve(file)}.${where} The server writes its key to DATA_DIR/private_key.pem on its first start; DATA_DIR (default ./data) is relative to the current directory (${process.cwd()}), so run svc where you ran the server, or set DATA_DIR or --key`,
      );
    }
    throw new Error(`cannot read the private key file ${file}: ${code ?? (error as Error).message}`);
  }
  if (!text.includes('-----BEGIN') || !text.includes('PRIVATE KEY-----')) {
    throw new Error(
      `${file} is not a PEM private key (it should start with -----BEGIN PRIVATE KEY----- or -----BEGIN EC PRIVATE KEY-----): pass the file svc keys create wrote, or DATA_DIR/private_key.pem`,
    );
  }
  return text;
}
