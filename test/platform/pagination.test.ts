import { randomBytes } from 'node:crypto';
import { CompiledQuery, createQueryId, sql, type RootOperationNode } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CursorCodec, type CursorPosition } from '../../src/http/cursor.ts';
import { listMerchantAccounts } from '../../src/modules/merchant-accounts/merchant-accounts.repo.ts';
import { buildTestApp, usesPostgres, type TestApp } from '../helpers/build-test-app.ts';
import { createTestKeyPair } from '../helpers/tokens.ts';
import { createMerchantAccount, removeMerchantAccounts } from '../helpers/factories.ts';

const TOTAL = 10_000;

interface Item {
  id: string;
  created_at: string;
}
interface Envelope {
  items: Item[];
  limit: number;
  next_cursor: string | null;
  previous_cursor: string | null;
}

let t: TestApp;
/** Rows in the table: the ones inserted below, plus whatever buildTestApp creates (e.g. `default`). */
let total: number;
beforeAll(async () => {
  t = await buildTestApp();
  // Three rows share each created_at (the id breaks the tie); ids are hashes in mixed case, so
  // their text order has nothing to do with insertion order. Every tenth display name says "Blue".
  await sql`
    INSERT INTO merchant_accounts (id, display_name, created_at)
    SELECT 'ma-' || CASE WHEN g % 2 = 0 THEN upper(left(md5(g::text), 10)) ELSE left(md5(g::text), 10) END || '-' || g,
           'Merchant ' || g || CASE WHEN g % 10 = 0 THEN ' Blue' ELSE '' END,
           timestamptz '2024-01-01T00:00:00Z' + (g / 3) * interval '1 millisecond'
    FROM generate_series(1, ${TOTAL}) AS g`.execute(t.deps.db);
  await sql`ANALYZE merchant_accounts`.execute(t.deps.db);
  total = (await sqlListing()).length;
});
afterAll(async () => t.close());

/** The expected order, straight from the database (same collation as the API's query). */
async function sqlListing(search?: string): Promise<string[]> {
  let query = t.deps.db
    .selectFrom('merchant_accounts')
    .select('id')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc');
  if (search)
    query = query.where((eb) => eb.or([eb('id', 'ilike', `%${search}%`), eb('display_name', 'ilike', `%${search}%`)]));
  return (await query.execute()).map((row) => row.id);
}

async function list(query: string, options: { token?: string | null } = {}) {
  return t.request({ method: 'GET', url: `/merchant-accounts?${query}`, ...options });
}

async function page(query: string): Promise<Envelope> {
  const res = await list(query);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Envelope;
}

const withCursor = (base: string, cursor: string) => `${base}&cursor=${encodeURIComponent(cursor)}`;

/** Follows one of the cursors from `start` until it is null (or `max` pages); returns the pages, `start` included. */
async function walk(
  base: string,
  start: Envelope,
  direction: 'next_cursor' | 'previous_cursor',
  between?: () => Promise<void>,
  max = Infinity,
): Promise<Envelope[]> {
  const pages = [start];
  for (
    let cursor = start[direction];
    cursor !== null && pages.length < max;
    cursor = pages[pages.length - 1]![direction]
  ) {
    await between?.();
    pages.push(await page(withCursor(base, cursor)));
  }
  return pages;
}

const ids = (pages: Envelope[]) => pages.flatMap((p) => p.items.map((item) => item.id));

function expectBadCursor(res: { statusCode: number; json(): unknown; body: string }): void {
  expect(res.statusCode, res.body).toBe(400);
  expect(res.json()).toEqual({
    type: 'error',
    code: 'bad_request',
    status: 400,
    message: expect.any(String),
    details: [{ location: 'query', pointer: '/cursor', message: expect.any(String), type: expect.any(String) }],
  });
}

describe('happy', () => {
  let forward: Envelope[];

  it('walks forward over all rows exactly once, newest first', async () => {
    const expected = await sqlListing();
    expect(expected.length).toBeGreaterThanOrEqual(TOTAL);
    forward = await walk('limit=100', await page('limit=100'), 'next_cursor');
    expect(forward).toHaveLength(Math.ceil(total / 100));
    expect(forward.slice(0, -1).every((p) => p.items.length === 100 && p.limit === 100)).toBe(true);
    const seen = ids(forward);
    expect(new Set(seen).size).toBe(total);
    expect(seen).toEqual(expected);
    const times = forward.flatMap((p) => p.items.map((item) => Date.parse(item.created_at)));
    expect(times.every((time, i) => i === 0 || time <= times[i - 1]!)).toBe(true);
    // Some page boundaries fall inside a group of equal created_at: only the id tie-break places them.
    expect(forward.some((p, i) => i > 0 && p.items[0]!.created_at === forward[i - 1]!.items.at(-1)!.created_at)).toBe(
      true,
    );
    expect(forward[0]!.previous_cursor).toBeNull();
    expect(forward.slice(1).every((p) => p.previous_cursor !== null)).toBe(true);
    expect(forward[forward.length - 1]!.next_cursor).toBeNull();
  });

  it('walks back from the last page through the same pages in reverse', async () => {
    const backward = await walk('limit=100', forward[forward.length - 1]!, 'previous_cursor');
    expect(backward.map((p) => p.items)).toEqual([...forward].reverse().map((p) => p.items));
    expect(backward[backward.length - 1]!.previous_cursor).toBeNull();
  });

  it('round-trips a middle page: previous then next gives the same items', async () => {
    const fiftieth = forward[49]!;
    const before = await page(withCursor('limit=100', fiftieth.previous_cursor!));
    expect(before.items).toEqual(forward[48]!.items);
    const again = await page(withCursor('limit=100', before.next_cursor!));
    expect(again.items).toEqual(fiftieth.items);
    expect(again.next_cursor).not.toBeNull();
    expect(again.previous_cursor).not.toBeNull();
  });

  it('uses limit 20 by default and accepts a different limit with the same cursor', async () => {
    const first = await page('');
    expect(first.limit).toBe(20);
    expect(first.items.map((i) => i.id)).toEqual(ids(forward).slice(0, 20));
    const next = await page(withCursor('limit=7', first.next_cursor!));
    expect(next.items.map((i) => i.id)).toEqual(ids(forward).slice(20, 27));
  });

  it('paginates a search, case-insensitively', async () => {
    const expected = await sqlListing('blue');
    expect(expected).toHaveLength(TOTAL / 10);
    const pages = await walk('limit=90&search=bLuE', await page('limit=90&search=bLuE'), 'next_cursor');
    expect(ids(pages)).toEqual(expected);
    expect(pages[0]!.previous_cursor).toBeNull();
    expect(pages.at(-1)!.items).toHaveLength(expected.length % 90);
    const back = await walk('limit=90&search=bLuE', pages.at(-1)!, 'previous_cursor');
    expect(ids([...back].reverse())).toEqual(expected);
  });

  it('answers an empty page with no cursors when nothing matches', async () => {
    expect(await page('search=no-such-merchant')).toEqual({
      items: [],
      limit: 20,
      next_cursor: null,
      previous_cursor: null,
    });
  });

  // Last: it adds rows.
  it('does not shift or repeat later pages when rows are created while paging', async () => {
    const expected = await sqlListing();
    const first = await page('limit=100');
    let created = 0;
    const insert = async () => {
      const res = await t.request({
        method: 'POST',
        url: '/merchant-accounts',
        payload: { id: `new-${++created}-${randomBytes(4).toString('hex')}`, display_name: 'Late' },
      });
      expect(res.statusCode).toBe(201);
    };
    const pages = await walk('limit=100', first, 'next_cursor', insert, 20);
    expect(pages).toHaveLength(20);
    expect(ids(pages)).toEqual(expected.slice(0, 2000));
    expect(await sqlListing()).toHaveLength(expected.length + created);
    // Back on page one, the rows created since come before it.
    const back = await page(withCursor('limit=100', pages[1]!.previous_cursor!));
    expect(back.items).toEqual(first.items);
    expect(back.previous_cursor).not.toBeNull();
  });
});

describe('deleted rows', () => {
  it('an empty page left by deleted rows leads back to the whole previous page', async () => {
    const tag = `gone${Date.now()}`;
    const created: string[] = [];
    for (let i = 1; i <= 5; i++)
      created.push(await createMerchantAccount(t.deps, { id: `${tag}-${i}`, display_name: tag }));
    const first = await page(`limit=2&search=${tag}`);
    expect(first.items.map((i) => i.id)).toEqual([`${tag}-5`, `${tag}-4`]);
    await removeMerchantAccounts(t.deps, [`${tag}-3`, `${tag}-2`, `${tag}-1`]);
    const empty = await page(withCursor(`limit=2&search=${tag}`, first.next_cursor!));
    expect(empty.items).toEqual([]);
    expect(empty.next_cursor).toBeNull();
    const back = await page(withCursor(`limit=2&search=${tag}`, empty.previous_cursor!));
    expect(back.items.map((i) => i.id)).toEqual([`${tag}-5`, `${tag}-4`]);
    expect(back.previous_cursor).toBeNull();
  });
});

describe('errors', () => {
  let cursor: string;
  beforeAll(async () => {
    cursor = (await page('limit=5')).next_cursor!;
  });

  it.each(['0', '101', '-1', 'abc', '1.5', ''])('answers 422 for limit=%s', async (limit) => {
    const res = await list(`limit=${limit}`);
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().detail.map((d: { loc: unknown }) => d.loc)).toContainEqual(['query', 'limit']);
  });

  it('answers 422 for a cursor longer than 1000 characters', async () => {
    const res = await list(`cursor=${'a'.repeat(1001)}`);
    expect(res.statusCode).toBe(422);
    expect(res.json().detail.map((d: { loc: unknown }) => d.loc)).toContainEqual(['query', 'cursor']);
  });

  it('answers 400 for a cursor with a changed payload or mac character', async () => {
    const dot = cursor.indexOf('.');
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
    for (const i of [0, Math.floor(dot / 2), dot - 1, dot + 1, cursor.length - 1]) {
      expectBadCursor(await list(withCursor('limit=5', flip(cursor, i))));
    }
  });

  it('answers 400 for a truncated cursor', async () => {
    for (const cut of [
      cursor.slice(0, -1),
      cursor.slice(0, cursor.indexOf('.') + 1),
      cursor.slice(0, cursor.indexOf('.')),
      cursor.slice(1),
    ]) {
      expectBadCursor(await list(withCursor('limit=5', cut)));
    }
  });

  it('answers 400 for random garbage, never 500', async () => {
    const garbage = [
      'x',
      '.',
      '..',
      'a.b',
      'a.b.c',
      `${cursor}.x`,
      'é✓',
      '%00',
      '{"d":"n"}',
      randomBytes(300).toString('base64'),
      `${randomBytes(30).toString('base64url')}.${randomBytes(16).toString('base64url').slice(0, 22)}`,
    ];
    for (const value of garbage) expectBadCursor(await list(withCursor('limit=5', value)));
  });

  it('answers 400 for a cursor of another list (another search)', async () => {
    expectBadCursor(await list(withCursor('limit=5&search=blue', cursor)));
    const searchCursor = (await page('limit=5&search=blue')).next_cursor!;
    expectBadCursor(await list(withCursor('limit=5', searchCursor)));
    expectBadCursor(await list(withCursor('limit=5&search=Blue', searchCursor)));
  });
});

describe('security', () => {
  it('asks for authentication before looking at the cursor', async () => {
    const res = await list('cursor=garbage', { token: null });
    expect(res.statusCode).toBe(401);
  });

  it('refuses a well-formed cursor signed with another secret, whatever position it names', async () => {
    const forged = new CursorCodec(randomBytes(32)).encode('merchant-accounts:', 'default', {
      direction: 'next',
      key: ['2099-01-01T00:00:00.000Z', 'zzz'],
    });
    expectBadCursor(await list(withCursor('limit=5', forged)));
  });

  it('refuses a cursor of another merchant account scope', async () => {
    const position: CursorPosition = { direction: 'next', key: ['2099-01-01T00:00:00.000Z', 'zzz'] };
    const mine = await createMerchantAccount(t.deps);
    const limited = await createTestKeyPair(t.deps, mine);
    const token = await limited.token();
    expectBadCursor(
      await list(withCursor('limit=5', t.deps.cursors.encode('merchant-accounts:', 'default', position)), { token }),
    );
    const own = t.deps.cursors.encode('merchant-accounts:', mine, position);
    const res = await list(withCursor('limit=5', own), { token });
    expect(res.statusCode).toBe(200);
    expect(res.json().items.map((i: Item) => i.id)).toEqual([mine]);
  });

  it('binds cursors of this instance-wide list to the credential, not to a merchant account header', async () => {
    const first = await page('limit=3');
    const res = await t.request({
      method: 'GET',
      url: `/merchant-accounts?${withCursor('limit=3', first.next_cursor!)}`,
      merchantAccountId: 'whatever',
    });
    expect(res.statusCode).toBe(200);
  });

  it('treats LIKE wildcards and quotes in search as text', async () => {
    for (const search of ['%', '_', "'; DROP TABLE merchant_accounts; --", '\\']) {
      expect(await page(`search=${encodeURIComponent(search)}`)).toEqual({
        items: [],
        limit: 20,
        next_cursor: null,
        previous_cursor: null,
      });
    }
    expect((await sqlListing()).length).toBeGreaterThanOrEqual(total);
  });

  it.skipIf(!usesPostgres())('runs both halves of a page on merchant_accounts_created_idx', async () => {
    const captured: RootOperationNode[] = [];
    const db = t.deps.db.withPlugin({
      transformQuery: ({ node }) => {
        captured.push(node);
        return node;
      },
      transformResult: async ({ result }) => result,
    });
    const plans: string[] = [];
    for (const position of [
      null,
      { direction: 'next', key: ['2024-01-01T00:00:01.000Z', 'ma-m'] },
      { direction: 'prev', key: ['2024-01-01T00:00:01.000Z', 'ma-m'] },
    ] as const) {
      captured.length = 0;
      await listMerchantAccounts(db, {}, position as CursorPosition | null, 100);
      const compiled = t.deps.db.getExecutor().compileQuery(captured.at(-1)!, createQueryId());
      const result = await t.deps.db.executeQuery<{ 'QUERY PLAN': string }>(
        CompiledQuery.raw(`EXPLAIN ${compiled.sql}`, [...compiled.parameters]),
      );
      plans.push(result.rows.map((row) => row['QUERY PLAN']).join('\n'));
    }
    const [first, next, prev] = plans as [string, string, string];
    expect(first).toContain('merchant_accounts_created_idx');
    for (const plan of [next, prev]) {
      expect(plan.match(/merchant_accounts_created_idx/g), plan).toHaveLength(2);
      // The keyset condition bounds the index range; as a mere Filter it would read every row before the page.
      expect(plan.match(/Index Cond: \(ROW\(created_at, id\)/g), plan).toHaveLength(2);
    }
    for (const plan of plans) expect(plan).not.toMatch(/Seq Scan|Sort/);
  });
});
