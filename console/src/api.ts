/**
 * The console's only way to the server: the public API and the sign-in API, on this origin, with
 * the session cookie (same-origin credentials), the session's CSRF token on every state-changing
 * request and the merchant account being viewed in its header. Errors become an `ApiError` whose
 * message is what the user reads; a 401 sends the user back to sign-in.
 */

export const MERCHANT_HEADER = 'x-svc-merchant-account-id';
export const CSRF_HEADER = 'x-csrf-token';

export interface ListPage<T> {
  items: T[];
  limit: number;
  next_cursor: string | null;
  previous_cursor: string | null;
}

interface ValidationDetail {
  loc?: Array<string | number>;
  msg?: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** What the user reads for an error answer: the spec's error body, or the 422 list of fields at fault. */
export function errorMessage(status: number, body: unknown): { code: string; message: string } {
  if (body && typeof body === 'object') {
    const b = body as { type?: string; code?: string; message?: string; detail?: ValidationDetail[] };
    if (Array.isArray(b.detail)) {
      const parts = b.detail.map(
        (d) =>
          `${(d.loc ?? []).filter((p) => p !== 'body' && p !== 'query').join('.') || 'request'}: ${d.msg ?? 'invalid'}`,
      );
      return { code: 'validation_error', message: parts.join('; ') || 'The request is not valid' };
    }
    if (b.type === 'error' && b.message) return { code: b.code ?? 'error', message: b.message };
  }
  return { code: 'http_error', message: `The server answered ${status}` };
}

const state = {
  csrf: null as string | null,
  merchantAccountId: null as string | null,
  onUnauthorized: (() => undefined) as () => void,
};

export function setCsrfToken(token: string | null): void {
  state.csrf = token;
}
export function setMerchantAccount(id: string | null): void {
  state.merchantAccountId = id;
}
export function onUnauthorized(handler: () => void): void {
  state.onUnauthorized = handler;
}

const SAFE = new Set(['GET', 'HEAD']);

/** Builds `path?query` leaving out empty values; arrays become repeated keys. */
export function withQuery(
  path: string,
  query: Record<string, string | number | boolean | string[] | null | undefined>,
): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === null || value === undefined || value === '') continue;
    for (const one of Array.isArray(value) ? value : [value]) params.append(key, String(one));
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

export interface RequestOptions {
  /** Leave out the merchant account header (the sign-in API). */
  noAccount?: boolean;
  /** A 401 is the caller's to show (sign-in with a wrong password), not a reason to leave the page. */
  keepOn401?: boolean;
}

export async function api<T>(method: string, path: string, body?: unknown, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (!SAFE.has(method) && state.csrf) headers[CSRF_HEADER] = state.csrf;
  if (!options.noAccount && state.merchantAccountId) headers[MERCHANT_HEADER] = state.merchantAccountId;
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch {
    throw new ApiError(0, 'network_error', 'The server could not be reached; check the connection and try again');
  }
  const text = await res.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  if (!res.ok) {
    const { code, message } = errorMessage(res.status, parsed);
    if (res.status === 401 && !options.keepOn401) state.onUnauthorized();
    throw new ApiError(res.status, code, message);
  }
  return parsed as T;
}

export const get = <T>(path: string, options?: RequestOptions) => api<T>('GET', path, undefined, options);
export const post = <T>(path: string, body?: unknown, options?: RequestOptions) => api<T>('POST', path, body, options);
export const put = <T>(path: string, body?: unknown) => api<T>('PUT', path, body);
export const del = <T>(path: string) => api<T>('DELETE', path);
