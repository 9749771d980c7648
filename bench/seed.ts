/** What the benchmark (bench/run.ts) does through the API before it measures: accounts, tokens, a deep cursor. */
import { randomBytes, randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { describePrivateKeyPem } from '../src/modules/api-key-pairs/key-material.ts';
import type { Server } from './server.ts';

export async function api(
  server: Server,
  token: string,
  method: string,
  url: string,
  body?: unknown,
): Promise<{ status: number; json: any }> {
  const res = await fetch(`${server.baseUrl}${url}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: await res.json() };
}

export async function expectOk(server: Server, token: string, url: string): Promise<any> {
  const res = await api(server, token, 'GET', url);
  if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}: ${JSON.stringify(res.json)}`);
  return res.json;
}

/** `accounts` merchant accounts, created through the API over 8 connections. */
export async function seed(server: Server, token: string, accounts: number): Promise<void> {
  const prefix = `bench-${randomBytes(3).toString('hex')}`;
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < accounts; i = next++) {
      const res = await api(server, token, 'POST', '/merchant-accounts', {
        id: `${prefix}-${i}`,
        display_name: `Bench merchant ${i}`,
      });
      if (res.status !== 201)
        throw new Error(`creating a merchant account answered ${res.status}: ${JSON.stringify(res.json)}`);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
}

/**
 * Distinct tokens with the claims `mintToken` writes. The key is parsed once: `mintToken` derives
 * the public key on every call, which would make minting thousands of tokens take minutes.
 */
export async function tokenPool(privateKeyPem: string, count: number): Promise<string[]> {
  const { privateKey, thumbprint } = await describePrivateKeyPem(privateKeyPem);
  const iat = Math.floor(Date.now() / 1000);
  const tokens: string[] = [];
  for (let i = 0; i < count; i++) {
    tokens.push(
      await new SignJWT({ scopes: ['*.read', '*.write'] })
        .setProtectedHeader({ alg: 'ES512', typ: 'JWT', kid: thumbprint })
        .setIssuedAt(iat)
        .setNotBefore(iat)
        .setExpirationTime(iat + 3600)
        .setJti(randomUUID())
        .setIssuer('svc-cli')
        .sign(privateKey),
    );
  }
  return tokens;
}

/** The address of page `pages + 2` of the merchant account list (a cursor deep in it). */
export async function deepCursor(server: Server, token: string, pages: number): Promise<string> {
  let body = await expectOk(server, token, '/merchant-accounts?limit=20');
  for (let i = 0; i < pages; i++) {
    if (!body.next_cursor) throw new Error(`the list ended after ${i + 1} pages; seed more accounts (BENCH_ACCOUNTS)`);
    body = await expectOk(server, token, `/merchant-accounts?limit=20&cursor=${encodeURIComponent(body.next_cursor)}`);
  }
  if (!body.next_cursor) throw new Error('the deep page is the last one; seed more accounts (BENCH_ACCOUNTS)');
  return `/merchant-accounts?limit=20&cursor=${encodeURIComponent(body.next_cursor)}`;
}
