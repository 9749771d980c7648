import { generateSecret, generateURI, verify } from 'otplib';
import type { Keyring } from '../../vault/keyring.ts';

/** Associated data of a sealed TOTP secret: bound to its user, so a secret copied to another user does not open. */
export const totpAad = (userId: string) => `dashboard_users:totp:${userId}`;

export const TOTP_ISSUER = 'svc';

/** A new TOTP secret (base32, 160 bits) and the otpauth URI an authenticator app scans. */
export function newTotpSecret(email: string): { secret: string; uri: string } {
  const secret = generateSecret({ length: 20 });
  return { secret, uri: generateURI({ issuer: TOTP_ISSUER, label: email, secret }) };
}

/**
 * Sealed as the instance secrets are (vault/instance-secrets.ts): a user belongs to no merchant
 * account, so the vault master key wraps the secret directly; `svc keys rotate-vault` re-wraps it.
 */
export async function sealTotpSecret(
  keyring: Keyring,
  userId: string,
  secret: string,
): Promise<{ totp_sealed: string; totp_master_key_id: string }> {
  const { wrapped, masterKeyId } = await keyring.wrap(Buffer.from(secret, 'utf8'), totpAad(userId));
  return { totp_sealed: wrapped, totp_master_key_id: masterKeyId };
}

export async function openTotpSecret(
  keyring: Keyring,
  userId: string,
  sealed: string,
  masterKeyId: string,
): Promise<string> {
  return (await keyring.unwrap(sealed, masterKeyId, totpAad(userId))).toString('utf8');
}

/**
 * Checks a 6-digit code, allowing one 30-second step of clock drift either way. Returns the time
 * step it matched, or null; a step at or before `lastStep` (a code already used) does not match.
 */
export async function checkTotpCode(secret: string, code: string, lastStep: number | null): Promise<number | null> {
  if (!/^\d{6}$/.test(code)) return null;
  const result = await verify({
    secret,
    token: code,
    epochTolerance: 30,
    ...(lastStep !== null ? { afterTimeStep: lastStep } : {}),
  });
  return result.valid ? (result as { timeStep: number }).timeStep : null;
}
