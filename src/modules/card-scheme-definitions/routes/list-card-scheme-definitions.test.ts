import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';
import { mintToken } from '../../../cli/token.ts';
import { CARD_SCHEMES } from '../../../lib/card-schemes.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const list = () => ({ method: 'GET' as const, url: '/card-scheme-definitions' });

describe('happy', () => {
  it('lists every card scheme with its display name and an absolute icon URL, in a plain items list', async () => {
    const res = await t.request(list());
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(Object.keys(body)).toEqual(['items']);
    expect(body.items.map((d: { id: string }) => d.id)).toEqual([...CARD_SCHEMES]);
    expect(body.items).toContainEqual({
      type: 'card-scheme-definition',
      id: 'visa',
      icon_url: `${t.config.publicUrl}/assets/card-schemes/visa.svg`,
      display_name: 'Visa',
    });
    expect(body.items).toContainEqual({
      type: 'card-scheme-definition',
      id: 'amex',
      icon_url: `${t.config.publicUrl}/assets/card-schemes/amex.svg`,
      display_name: 'American Express',
    });
    expect(body.items).toContainEqual(expect.objectContaining({ id: 'other', display_name: 'Other' }));
  });

  it('gives icon URLs that load without a token', async () => {
    const { items } = (await t.request(list())).json();
    for (const item of items as Array<{ icon_url: string }>) {
      const res = await t.app.inject({ method: 'GET', url: new URL(item.icon_url).pathname });
      expect(res.statusCode, item.icon_url).toBe(200);
      expect(res.headers['content-type']).toBe('image/svg+xml; charset=utf-8');
    }
  });

  it('answers the same for any merchant account the credential reaches', async () => {
    const res = await t.request({ ...list(), merchantAccountId: 'default' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual((await t.request(list())).json());
  });
});

describe('errors', () => {
  it('answers 405 with Allow for other methods', async () => {
    const res = await t.request({ method: 'DELETE', url: '/card-scheme-definitions' });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toContain('GET');
  });

  it('answers 403 for a merchant account that does not exist', async () => {
    const res = await t.request({ ...list(), merchantAccountId: 'no-such-account' });
    expect(res.statusCode).toBe(403);
  });
});

describe('security', () => {
  runScopeTests(() => t, { request: list, scope: 'card-scheme-definitions.read' });

  it('is open to embed tokens (checkout front ends show the icons)', async () => {
    const token = await mintToken({ privateKeyPem: t.keys.privateKeyPem, scopes: ['embed'], lifetimeSeconds: 3600 });
    expect((await t.request({ ...list(), token })).statusCode).toBe(200);
  });
});
