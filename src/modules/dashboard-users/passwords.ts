import { Algorithm, hash, verify } from '@node-rs/argon2';

/** The shortest password accepted (NIST SP 800-63B asks for 8 at least; the console guards money). */
export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 256;

/**
 * argon2id with OWASP's first recommended setting: 19 MiB, 2 passes, one thread (about 25 ms here).
 * The PHC string stores them, so a later change still verifies older hashes.
 */
const OPTIONS = { algorithm: Algorithm.Argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 };

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

/** A hash of nothing anyone knows, verified when no user matches, so both answers take as long. */
let decoy: Promise<string> | null = null;
export async function verifyAgainstDecoy(password: string): Promise<false> {
  decoy ??= hashPassword(`decoy-${Math.random()}`);
  await verifyPassword(await decoy, password);
  return false;
}

/**
 * Why a new password is refused, or null: too short or long, or made of the e-mail address (or its
 * local part), which is the first thing anyone guesses.
 */
export function passwordProblem(password: string, email: string): string | null {
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH) return `The password must have at least ${MIN_PASSWORD_LENGTH} characters`;
  if (length > MAX_PASSWORD_LENGTH) return `The password must have at most ${MAX_PASSWORD_LENGTH} characters`;
  const lower = password.toLowerCase();
  const address = email.toLowerCase();
  const local = address.split('@')[0] ?? address;
  if (lower.includes(address) || (local.length >= 4 && lower.includes(local)))
    return 'The password may not contain the e-mail address or its name part';
  if (new Set(lower).size < 4) return 'The password must use at least 4 different characters';
  return null;
}
