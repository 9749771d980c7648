import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { mintToken } from '../../../cli/token.ts';
import { roleId, ROLES } from '../../roles/roles.catalogue.ts';
import { scopesWithin } from '../access-token.ts';
import { createKeyPair } from '../api-key-pairs.service.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const create = (payload: Record<string, unknown>, scopes?: string[]) =>
  t.request({ method: 'POST', url: '/api-key-pairs', payload, ...(scopes ? { scopes } : {}) });
const tokenOf = (privateKeyPem: string, scopes = ['*.read', '*.write']) =>
  mintToken({ privateKeyPem, scopes, lifetimeSeconds: 300 });
const status = async (token: string, method: 'GET' | 'POST', url: string, payload?: object) =>
  (await t.request({ method, url, token, ...(payload ? { payload } : {}) })).statusCode;

describe('happy', () => {
  it("gives a pair roles (role_ids): its tokens get at most the roles' scopes, whatever they claim", async () => {
    const res = await create({
      display_name: 'Support tool',
      role_ids: [roleId('customer-support'), roleId('pii-viewer')],
    });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body.roles.map((r: { slug: string }) => r.slug)).toEqual(['customer-support', 'pii-viewer']);
    expect((await t.request({ method: 'GET', url: `/api-key-pairs/${body.id}` })).json().roles).toEqual(body.roles);
    const token = await tokenOf(body.private_key);
    expect(await status(token, 'GET', '/transactions')).toBe(200);
    expect(await status(token, 'POST', '/buyers', { display_name: 'Ada' })).toBe(201);
    expect(await status(token, 'POST', '/api-key-pairs', { display_name: 'escalation' })).toBe(403);
    expect(await status(token, 'GET', '/payment-services')).toBe(403);
    // A token claiming fewer scopes keeps only those.
    expect(
      await status(await tokenOf(body.private_key, ['transactions.read']), 'POST', '/buyers', { display_name: 'Ada' }),
    ).toBe(403);
  });

  it('gives roles to a pair the operator creates (svc keys create --role), and refuses an unknown slug', async () => {
    const created = await createKeyPair(t.deps, { displayName: 'cli', merchantAccountId: null, roles: ['analyst'] });
    const pair = (await t.request({ method: 'GET', url: `/api-key-pairs/${created.id}` })).json();
    expect(pair.roles.map((r: { slug: string }) => r.slug)).toEqual(['analyst']);
    const token = await tokenOf(created.privateKeyPem);
    expect(await status(token, 'GET', '/transactions')).toBe(200);
    expect(await status(token, 'POST', '/buyers', { display_name: 'Ada' })).toBe(403);
    await expect(
      createKeyPair(t.deps, { displayName: 'cli', merchantAccountId: null, roles: ['auditor'] }),
    ).rejects.toThrow(/Unknown role auditor; the roles are administrator/);
  });

  it('reads a claim against the roles: exact scopes and *.read / *.write, embed kept when claimed', () => {
    const roles = [...ROLES.analyst.allow];
    expect(scopesWithin(['*.read'], roles)).toEqual(roles);
    expect(scopesWithin(['*.write'], roles)).toEqual([]);
    expect(scopesWithin(['transactions.read', 'payment-services.read'], roles)).toEqual(['transactions.read']);
    expect(scopesWithin(['embed', '*.read'], ['transactions.read'])).toEqual(['transactions.read', 'embed']);
    expect(scopesWithin(['*.read', 'x.write'], null)).toEqual(['*.read', 'x.write']);
  });
});

describe('errors', () => {
  it('refuses an unknown role id and an add-on alone (400)', async () => {
    const unknown = await create({ display_name: 'x', role_ids: ['fe26475d-ec3e-4884-9553-f7356683f7f9'] });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().details[0].pointer).toBe('/role_ids');
    const alone = await create({ display_name: 'x', role_ids: [roleId('report-viewer')] });
    expect(alone.statusCode).toBe(400);
    expect(alone.json().message).toMatch(/needs analyst or customer-support/);
    expect((await create({ display_name: 'x', role_ids: [] })).statusCode).toBe(422);
  });
});

describe('security', () => {
  it("refuses roles beyond the caller's own scopes (403): a key pair cannot be used to escalate", async () => {
    const res = await create({ display_name: 'x', role_ids: [roleId('administrator')] }, [
      'api-key-pairs.write',
      'api-key-pairs.read',
    ]);
    expect(res.statusCode).toBe(403);
    expect(res.json().message).toMatch(/lacks/);
    const within = await create({ display_name: 'y', role_ids: [roleId('analyst')] }, [
      'api-key-pairs.write',
      '*.read',
    ]);
    expect(within.statusCode, within.body).toBe(201);
  });
});
