import type { InjectOptions } from 'fastify';
import { expect, it } from 'vitest';
import type { TestApp } from './build-test-app.ts';

export interface ScopeTestOptions {
  /** Builds the request; called per test so it can create fresh resources. */
  request: () => Promise<InjectOptions> | InjectOptions;
  /** The scope the operation requires. */
  scope: string;
  /** A scope that must not be enough (default: the other half of the pair). */
  wrongScope?: string;
}

/** The security checks every operation shares: 401 without a token, 403 without its scope. */
export function runScopeTests(getApp: () => TestApp, options: ScopeTestOptions): void {
  it('answers 401 without a token', async () => {
    const t = getApp();
    const res = await t.request({ ...(await options.request()), token: null });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({
      type: 'error',
      code: 'unauthorized',
      status: 401,
      message: 'No valid API authentication found: missing authorization header',
      details: [],
    });
  });

  it('answers 401 with a token signed by an unknown key', async () => {
    const t = getApp();
    const res = await t.request({
      ...(await options.request()),
      headers: {
        ...(await options.request()).headers,
        authorization: 'Bearer eyJhbGciOiJFUzUxMiIsImtpZCI6Im5vcGUifQ.eyJzY29wZXMiOltdfQ.c2ln',
      },
      token: null,
    });
    expect(res.statusCode).toBe(401);
  });

  it(`answers 403 without ${options.scope}`, async () => {
    const t = getApp();
    const wrong =
      options.wrongScope ??
      (options.scope.endsWith('.read')
        ? options.scope.replace(/\.read$/, '.write')
        : options.scope.replace(/\.write$/, '.read'));
    const res = await t.request({ ...(await options.request()), scopes: [wrong] });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ type: 'error', code: 'forbidden', status: 403 });
  });
}
