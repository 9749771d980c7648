import { randomUUID } from 'node:crypto';
import { mintToken } from './token.ts';

/** How `svc listen` and `svc trigger` reach a running server: its URL, a key file, an account. */
export interface ApiTarget {
  baseUrl: string;
  privateKeyPem: string;
  merchantAccountId: string | null;
}

export interface ApiAnswer {
  status: number;
  body: Record<string, unknown>;
}

/** The server's error body, or the transport failure, as one line a person can act on. */
export class ApiError extends Error {
  constructor(
    readonly status: number | null,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A small client of the public API for CLI commands: a fresh short token per call (a `listen`
 * session may last longer than any token), an idempotency key on every POST (a retry never pays
 * twice), JSON in and out, and a bounded wait.
 */
export class ApiClient {
  constructor(
    private readonly target: ApiTarget,
    private readonly timeoutMs = 30_000,
  ) {}

  get merchantAccountId(): string {
    return this.target.merchantAccountId ?? 'default';
  }

  async call(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<ApiAnswer> {
    const token = await mintToken({
      privateKeyPem: this.target.privateKeyPem,
      scopes: ['*.read', '*.write'],
      lifetimeSeconds: 300,
    });
    const headers: Record<string, string> = {
      authorization: `Bearer ${token}`,
      'x-svc-merchant-account-id': this.merchantAccountId,
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (method === 'POST') headers['idempotency-key'] = randomUUID();
    let response: Response;
    try {
      response = await fetch(new URL(path, this.target.baseUrl), {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        redirect: 'manual',
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      throw new ApiError(
        null,
        `cannot reach the server at ${this.target.baseUrl} (${(error as Error).cause ? String((error as { cause: unknown }).cause) : (error as Error).message}); is it running? (--url)`,
      );
    }
    const text = await response.text();
    const parsed = text === '' ? {} : (safeJson(text) ?? { message: text.slice(0, 200) });
    if (response.status >= 400)
      throw new ApiError(
        response.status,
        `${method} ${path} answered ${response.status}: ${String(parsed.message ?? JSON.stringify(parsed.detail ?? parsed))}`,
      );
    return { status: response.status, body: parsed };
  }
}

function safeJson(text: string): Record<string, unknown> | null {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return null;
  }
}
