import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';
import { ALL_SCOPES } from '../../../http/scopes.ts';
import { uuidv5 } from '../../../lib/ids.ts';
import { ROLE_ID_NAMESPACE, ROLE_SLUGS, ROLES } from '../roles.catalogue.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

interface Role {
  id: string;
  slug: string;
  permissions: { allow: string[] };
  applies_to: string[];
  is_standalone_assignable: boolean;
}

const list = async (query = '', scopes?: string[]) => {
  const res = await t.request({ method: 'GET', url: `/roles${query}`, ...(scopes ? { scopes } : {}) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { items: Role[]; limit: number; next_cursor: string | null; previous_cursor: string | null };
};

describe('happy', () => {
  it('lists the base roles then the add-ons, 20 a page by default, with stable ids (UUIDv5 of the slug)', async () => {
    const page = await list('', ['roles.read']);
    expect(page.items.map((r) => r.slug)).toEqual([...ROLE_SLUGS]);
    expect(page).toMatchObject({ limit: 20, next_cursor: null, previous_cursor: null });
    expect(page.items[0]).toEqual({
      type: 'role',
      id: uuidv5('administrator', ROLE_ID_NAMESPACE),
      name: 'Administrator',
      slug: 'administrator',
      description: 'Full read and write access: every scope, so every other role.',
      permissions: { allow: ALL_SCOPES.filter((s) => !s.startsWith('*') && s !== 'embed').sort() },
      assignable_to: ['user', 'api-key-pair'],
      applies_to: [],
      is_standalone_assignable: true,
    });
    for (const addOn of page.items.slice(6))
      expect(addOn).toMatchObject({ applies_to: ['analyst', 'customer-support'], is_standalone_assignable: false });
    expect(page.items.find((r) => r.slug === 'pii-viewer')!.permissions.allow).toEqual(['buyers.billing-details.read']);
  });

  it('pages forward and back with cursors', async () => {
    const first = await list('?limit=4');
    expect(first.items.map((r) => r.slug)).toEqual(ROLE_SLUGS.slice(0, 4));
    const second = await list(`?limit=4&cursor=${first.next_cursor}`);
    expect(second.items.map((r) => r.slug)).toEqual(ROLE_SLUGS.slice(4, 8));
    const third = await list(`?limit=4&cursor=${second.next_cursor}`);
    expect(third.items.map((r) => r.slug)).toEqual(ROLE_SLUGS.slice(8));
    expect(third.next_cursor).toBeNull();
    const back = await list(`?limit=4&cursor=${third.previous_cursor}`);
    expect(back.items.map((r) => r.slug)).toEqual(ROLE_SLUGS.slice(4, 8));
    expect(back.previous_cursor).not.toBeNull();
  });

  it('grants only scopes the API has, and no role but administrator may change payment services or API keys', () => {
    for (const slug of ROLE_SLUGS) {
      for (const scope of ROLES[slug].allow) expect(ALL_SCOPES, `${slug}: ${scope}`).toContain(scope);
      if (slug !== 'administrator' && slug !== 'system-manager')
        expect(ROLES[slug].allow).not.toContain('payment-services.write');
      if (slug !== 'administrator') expect(ROLES[slug].allow).not.toContain('api-key-pairs.write');
    }
  });

  it('is the role table of docs/dashboard.md, row for row', () => {
    const doc = fs.readFileSync(path.resolve(import.meta.dirname, '../../../../docs/dashboard.md'), 'utf8');
    const section = doc.split('## Roles and their scopes')[1]!.split('\n## ')[0]!;
    const rows = section.split('\n').filter((line) => line.startsWith('| `'));
    const table = Object.fromEntries(
      rows.map((line) => {
        const [, slug, scopes] = line.split('|').map((cell) => cell.trim());
        return [
          slug!.replace(/`/g, ''),
          scopes!
            .split(',')
            .map((s) => s.trim().replace(/`/g, ''))
            .sort(),
        ];
      }),
    );
    expect(table).toEqual(Object.fromEntries(ROLE_SLUGS.map((slug) => [slug, [...ROLES[slug].allow].sort()])));
  });
});

describe('errors', () => {
  it('refuses a limit out of 1 to 100, and a cursor edited by hand', async () => {
    expect((await t.request({ method: 'GET', url: '/roles?limit=0' })).statusCode).toBe(422);
    expect((await t.request({ method: 'GET', url: '/roles?limit=101' })).statusCode).toBe(422);
    const cursor = (await list('?limit=2')).next_cursor!;
    const [, mac] = cursor.split('.');
    const edited = `${Buffer.from(JSON.stringify({ d: 'n', k: [5, 'system-support'] })).toString('base64url')}.${mac}`;
    const res = await t.request({ method: 'GET', url: `/roles?cursor=${edited}` });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/cursor is not valid/);
  });
});

describe('security', () => {
  runScopeTests(() => t, { request: () => ({ method: 'GET', url: '/roles' }), scope: 'roles.read' });
});
