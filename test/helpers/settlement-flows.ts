import { expect } from 'vitest';
import type { TestApp } from './build-test-app.ts';

/**
 * The JSON calls the settlement flow tests make as a client of merchant account `m`, each checking
 * its status: a GET (200), a POST (the status given).
 */
export function jsonCalls(app: () => TestApp) {
  const get = async (m: string, url: string) => {
    const res = await app().request({ method: 'GET', url, merchantAccountId: m });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  const post = async (m: string, url: string, payload: Record<string, unknown> = {}, status = 200) => {
    const res = await app().request({ method: 'POST', url, merchantAccountId: m, payload });
    expect(res.statusCode, res.body).toBe(status);
    return res.json();
  };
  return { get, post };
}

/** Creates a payment service with `payload` (POST /payment-services, 201) and answers its id. */
export async function createPaymentService(t: TestApp, m: string, payload: Record<string, unknown>): Promise<string> {
  const res = await t.request({ method: 'POST', url: '/payment-services', merchantAccountId: m, payload });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as string;
}
