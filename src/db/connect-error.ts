/**
 * Start-up errors of a PostgreSQL DATABASE_URL in words (issue 51): a refused or unreachable
 * address becomes one line naming host:port, and no message printed by the CLI carries the URL's
 * password.
 */

/** Socket errors that mean "nothing answers at that address" rather than a database refusal. */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNRESET',
  'EADDRNOTAVAIL',
]);
const UNKNOWN_HOST = new Set(['ENOTFOUND', 'EAI_AGAIN']);

function codeOf(error: unknown): string | null {
  if (!error || typeof error !== 'object') return null;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (UNREACHABLE.has(code) || UNKNOWN_HOST.has(code))) return code;
  // A host name with several addresses (localhost: ::1 and 127.0.0.1) fails with one error per address.
  const inner = (error as { errors?: unknown }).errors;
  if (Array.isArray(inner)) for (const each of inner) if (codeOf(each)) return codeOf(each);
  return null;
}

/** host:port of a postgres:// URL (port 5432 when absent); null when it is not a URL. */
export function databaseAddress(databaseUrl: string): string | null {
  try {
    const url = new URL(databaseUrl);
    return `${url.hostname || 'localhost'}:${url.port || '5432'}`;
  } catch {
    return null;
  }
}

/**
 * The one line for an error of connecting to `databaseUrl`, or null when `error` is not about
 * reaching the server (a refused login, a missing database: their own messages say so).
 */
export function databaseConnectMessage(error: unknown, databaseUrl: string): string | null {
  const code = codeOf(error);
  if (!code) return null;
  const at = databaseAddress(databaseUrl) ?? 'the address of DATABASE_URL';
  if (UNKNOWN_HOST.has(code))
    return `cannot connect to PostgreSQL at ${at} (${code}): the host name does not resolve; check DATABASE_URL`;
  return `cannot connect to PostgreSQL at ${at} (${code}): is it running? check DATABASE_URL`;
}

/** `text` with the password of `databaseUrl` (as written and decoded) masked. */
export function withoutDatabasePassword(text: string, databaseUrl: string | null | undefined): string {
  if (!databaseUrl) return text;
  let password = '';
  try {
    password = new URL(databaseUrl).password;
  } catch {
    return text.split(databaseUrl).join('<DATABASE_URL>');
  }
  if (!password) return text;
  let masked = text.split(password).join('***');
  try {
    const decoded = decodeURIComponent(password);
    if (decoded) masked = masked.split(decoded).join('***');
  } catch {
    // A malformed escape: the form as written is masked already.
  }
  return masked;
}
