import { createRequire } from 'node:module';
import fc from 'fast-check';
import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestRuntime } from '../../test/helpers/build-test-app.ts';
import type { Runtime } from '../deps.ts';
import type { GroupCommit } from './group-commit.ts';
import {
  arrayLiteral,
  groupedArrays,
  groupedText,
  jsonArrays,
  jsonRows,
  readShape,
  writeShape,
} from './group-commit-sql.ts';
import { GuardFailed, groupRunnerOf, readRows, runGuardedWrites, runWrites } from './write-batch.ts';

describe('group commit SQL (pure)', () => {
  it('turns a one-row insert into an insert from unnested arrays', () => {
    const shape = writeShape('insert into "t" ("a", "b") values ($1, $2) returning *')!;
    expect(groupedText(shape, 3, ['int4', 'text'])).toBe(
      'insert into "t" ("a", "b") select "v"."p1", "v"."p2" from unnest($4::int4[], $5::text[]) as "v" ("p1", "p2") returning *',
    );
    expect(
      groupedArrays(shape, [
        [1, 'x'],
        [2, 'y'],
      ]),
    ).toEqual([
      [1, 2],
      ['x', 'y'],
    ]);
  });

  it('takes a multi-row insert of one template, row after row', () => {
    const shape = writeShape('insert into "t" ("a", "b") values ($1, $2), ($3, $4)')!;
    expect(shape.rows).toBe(2);
    expect(
      groupedArrays(shape, [
        [1, 'a', 2, 'b'],
        [3, 'c', 4, 'd'],
      ]),
    ).toEqual([
      [1, 2, 3, 4],
      ['a', 'b', 'c', 'd'],
    ]);
  });

  it('refuses rows of different templates, literals, nested WITHs and unknown statements', () => {
    expect(writeShape('insert into "t" ("a", "b") values ($1, default), ($2, $3)')).toBeNull();
    expect(writeShape(`insert into "t" ("a") values ('x')`)).toBeNull();
    expect(writeShape('with x as (select 1) insert into "t" ("a") values ($1)')).toBeNull();
    expect(writeShape('delete from "t" where "id" = $1')).toBeNull();
    expect(writeShape('update "t" set "a" = $1 from "u" where "t"."id" = "u"."id" and "id" = $2')).toBeNull();
  });

  it('turns an update into an update from unnested arrays, finding rows by any(array) and counting them', () => {
    const shape = writeShape(
      'update "t" set "a" = "a" + $1, "b" = $2 where "m" = $3 and "id" = $4 and (status = $5) is true returning *',
    )!;
    expect(shape.update).toBe(true);
    expect(groupedText(shape, 0, ['int8', 'text', 'text', 'text', 'text'])).toBe(
      'update "t" set "a" = "a" + "v"."p1", "b" = "v"."p2" from unnest($1::int8[], $2::text[], $3::text[], $4::text[], $5::text[]) as "v" ("p1", "p2", "p3", "p4", "p5") where "m" = "v"."p3" and "id" = "v"."p4" and (status = "v"."p5") is true and "t"."m" = any((select $3::text[])::text[]) and "t"."id" = any((select $4::text[])::text[]) returning "t".*',
    );
    expect(writeShape('update "t" set "a" = $1 where "id" = $2')!.template).toMatch(/ returning 1$/);
  });

  it('turns a read by equalities into a join with the unnested parameters, each row naming its member', () => {
    const shape = readShape('select * from "t" where "m" = $1 and "id" = $2')!;
    expect(groupedText(shape, 0, ['text', 'uuid'])).toBe(
      'select "t".*, "v"."svc_member" from unnest($1::text[], $2::uuid[]) with ordinality as "v" ("p1", "p2", "svc_member") join "t" on "t"."m" = "v"."p1" and "t"."id" = "v"."p2" where "t"."m" = any((select $1::text[])::text[]) and "t"."id" = any((select $2::uuid[])::uuid[])',
    );
    expect(readShape('select * from "t" where "m" = $1 and "at" > $2')).toBeNull();
    expect(readShape('select * from "t" where "m" = $1 for update')).toBeNull();
    expect(readShape('select "id" from "t" where "m" = $1')).toBeNull();
    expect(
      groupedText(readShape('delete from "t" where "m" = $1 and "o" = $2 returning "id", "c"')!, 0, ['text', 'text']),
    ).toBe(
      'delete from "t" using unnest($1::text[], $2::text[]) with ordinality as "v" ("p1", "p2", "svc_member") where "t"."m" = "v"."p1" and "t"."o" = "v"."p2" and "t"."m" = any((select $1::text[])::text[]) and "t"."o" = any((select $2::text[])::text[]) returning "id", "c", "v"."svc_member"',
    );
  });

  it('sends jsonb values the statement only reads as one JSON array, checked for its count', () => {
    const shape = writeShape('update "t" set "d" = $1, "n" = $2 where "id" = $3 and "j" = $4')!;
    const types = ['jsonb', 'int4', 'text', 'jsonb'];
    // "j" is compared with = any(...): it keeps its PostgreSQL array.
    expect(jsonArrays(shape, types)).toEqual([true, false, false, false]);
    expect(groupedText(shape, 2, types, jsonArrays(shape, types))).toBe(
      'update "t" set "d" = ("v"."p1" -> 0), "n" = "v"."p2" from rows from (jsonb_array_elements(case when svc_require(jsonb_array_length($3::jsonb) = $7::bigint, \'grouped JSON values are not one per row\') then $3::jsonb end), unnest($4::int4[]), unnest($5::text[]), unnest($6::jsonb[])) as "v" ("p1", "p2", "p3", "p4") where "id" = "v"."p3" and "j" = "v"."p4" and "t"."id" = any((select $5::text[])::text[]) and "t"."j" = any((select $6::jsonb[])::jsonb[]) returning 1',
    );
    // A parameter number past 9 is not mistaken for another ("$@1" is not "$@10").
    const wide = writeShape(
      `insert into "t" (${Array.from({ length: 11 }, (_, i) => `"c${i}"`).join(', ')}) values (${Array.from({ length: 11 }, (_, i) => `$${i + 1}`).join(', ')})`,
    )!;
    expect(jsonArrays(wide, Array(11).fill('jsonb')).every(Boolean)).toBe(true);
  });

  it('wraps each JSON value in an array of its own, SQL NULL as an empty one, with nothing escaped', () => {
    expect(jsonRows(['{"a":"\\"q\\""}', null, 'null', { b: [1] }, 7])).toBe(
      '[[{"a":"\\"q\\""}],[],[null],[{"b":[1]}],[7]]',
    );
    expect(JSON.parse(jsonRows(['"x"', null])!)).toEqual([['x'], []]);
    expect(jsonRows([undefined])).toBeNull();
  });

  it('refuses an update it could not find by index', () => {
    expect(writeShape('update "t" set "a" = $1 where "b" > $2')).toBeNull();
  });
});

describe('group commit (both databases)', () => {
  let runtime: Runtime;
  let dispose: () => Promise<void>;
  beforeAll(async () => {
    ({ runtime, dispose } = await openTestRuntime());
    const db = runtime.deps.db;
    await sql`create table gc_parent (id text primary key, amount bigint not null, status text not null, data jsonb, at timestamptz, raw bytea, note text)`.execute(
      db,
    );
    await sql`create table gc_child (id text primary key, parent_id text not null references gc_parent (id), seq int not null)`.execute(
      db,
    );
    await sql`create table gc_counter (id text primary key, n int not null check (n < 1000))`.execute(db);
  });
  afterAll(async () => dispose?.());

  // biome-ignore lint/suspicious/noExplicitAny: the tables this test creates are not in the Database type
  const db = () => runtime.deps.db as any;
  const stats = () => (groupRunnerOf(runtime.deps.db) as GroupCommit).stats;

  it('writes concurrent members in one statement, each getting its own row back, values intact', async () => {
    const before = { ...stats() };
    const at = new Date('2026-11-27T01:02:03.456Z');
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => {
        const id = `p${i}`;
        return runWrites<{ id: string; amount: number; data: unknown; at: Date; raw: Buffer; note: string | null }>(
          db(),
          [
            db()
              .insertInto('gc_child')
              .values([
                { id: `${id}-a`, parent_id: id, seq: 1 },
                { id: `${id}-b`, parent_id: id, seq: 2 },
              ]),
            db()
              .insertInto('gc_parent')
              .values({
                id,
                amount: 100 + i,
                status: 'processing',
                data: JSON.stringify({ i, list: [1, 'two', { q: '"\\' }] }),
                at,
                raw: Buffer.from([0, 1, 255, i]),
                note: i % 2 ? null : `n,"{}'${i}`,
              })
              .returningAll(),
          ],
          { column: 'id', value: id },
        );
      }),
    );
    results.forEach((rows, i) => {
      expect(rows).toHaveLength(1);
      // bytea: a Buffer from pg, a Uint8Array from PGlite.
      expect({ ...rows[0], raw: Buffer.from(rows[0]!.raw) }).toMatchObject({
        id: `p${i}`,
        amount: 100 + i,
        data: { i, list: [1, 'two', { q: '"\\' }] },
        at,
        raw: Buffer.from([0, 1, 255, i]),
        note: i % 2 ? null : `n,"{}'${i}`,
      });
    });
    expect(stats().statements).toBeGreaterThan(before.statements);
    const children = await sql<{ n: number }>`select count(*)::int as n from gc_child`.execute(db());
    expect(children.rows[0]!.n).toBe(40);
  });

  it('keeps JSON null and SQL NULL apart, and objects and texts alike, within one grouped statement', async () => {
    const before = { ...stats() };
    const values: unknown[] = [
      null,
      'null',
      JSON.stringify({ k: 'a"b\\c', u: '\u2028é' }),
      JSON.stringify([1, null]),
      JSON.stringify('text'),
    ];
    const rows = await Promise.all(
      values.map((data, i) =>
        runWrites<{ id: string; data: unknown }>(
          db(),
          [
            db()
              .insertInto('gc_parent')
              .values({ id: `j${i}`, amount: i, status: 'processing', data })
              .returning(['id', 'data']),
          ],
          { column: 'id', value: `j${i}` },
        ),
      ),
    );
    expect(stats().statements).toBeGreaterThan(before.statements);
    expect(stats().fallbacks).toBe(before.fallbacks);
    expect(rows.map((r) => r[0]!.data)).toEqual([null, null, { k: 'a"b\\c', u: '\u2028é' }, [1, null], 'text']);
    const stored = await sql<{
      id: string;
      is_null: boolean;
      kind: string | null;
    }>`select id, data is null as is_null, jsonb_typeof(data) as kind from gc_parent where id like 'j%' order by id`.execute(
      db(),
    );
    expect(stored.rows).toEqual([
      { id: 'j0', is_null: true, kind: null },
      { id: 'j1', is_null: false, kind: 'null' },
      { id: 'j2', is_null: false, kind: 'object' },
      { id: 'j3', is_null: false, kind: 'array' },
      { id: 'j4', is_null: false, kind: 'string' },
    ]);
  });

  it('refuses a JSON array whose count is not the count of rows: a text of several JSON values never shifts its neighbours', async () => {
    // A JSON array one value too many or too few for the statement's two rows: nothing is read, SV001.
    const shape = writeShape(
      'insert into "gc_parent" ("id", "amount", "status", "data", "note") values ($1, $2, $3, $4, $5)',
    )!;
    const types = ['text', 'int8', 'text', 'jsonb', 'text'];
    const json = [false, false, false, true, false];
    const text = groupedText(shape, 0, types, json);
    const refuse = (data: string) =>
      db().executeQuery(
        CompiledQuery.raw(text, [['c1', 'c2'], [1, 2], ['processing', 'processing'], data, ['x', 'y'], 2]),
      );
    await expect(refuse('[[1],[2],[3]]')).rejects.toMatchObject({ code: 'SV001' });
    await expect(refuse('[[1]]')).rejects.toMatchObject({ code: 'SV001' });
    const none = await sql<{ n: number }>`select count(*)::int as n from gc_parent where id in ('c1', 'c2')`.execute(
      db(),
    );
    expect(none.rows[0]!.n).toBe(0);
    // Two JSON arrays, the second one value short: the one check covers every array of the statement.
    await sql`create table gc_docs (id text primary key, a jsonb, b jsonb)`.execute(db());
    const docs = groupedText(
      writeShape('insert into "gc_docs" ("id", "a", "b") values ($1, $2, $3)')!,
      0,
      ['text', 'jsonb', 'jsonb'],
      [false, true, true],
    );
    const write = (b: string) => db().executeQuery(CompiledQuery.raw(docs, [['d1', 'd2'], '[[1],[2]]', b, 2]));
    await expect(write('[[3]]')).rejects.toMatchObject({ code: 'SV001' });
    await write('[[3],[]]');
    const written = await sql<{ id: string; a: unknown; b: unknown }>`select id, a, b from gc_docs order by id`.execute(
      db(),
    );
    expect(written.rows).toEqual([
      { id: 'd1', a: 1, b: 3 },
      { id: 'd2', a: 2, b: null },
    ]);
    // A member whose "JSON text" is two values ('1],[2') would add one: its group is refused and
    // every member runs alone; it gets PostgreSQL's own refusal, the others their rows.
    const before = { ...stats() };
    const values = ['{"a":1}', '1],[2', '{"c":3}', 'null'];
    const outcomes = await Promise.allSettled(
      values.map((data, i) =>
        runWrites<{ id: string; data: unknown }>(
          db(),
          [
            db()
              .insertInto('gc_parent')
              .values({ id: `k${i}`, amount: i, status: 'processing', data })
              .returning(['id', 'data']),
          ],
          { column: 'id', value: `k${i}` },
        ),
      ),
    );
    expect(stats().fallbacks).toBeGreaterThan(before.fallbacks);
    expect(outcomes[1]).toMatchObject({ status: 'rejected', reason: { code: '22P02' } });
    expect(outcomes.filter((_, i) => i !== 1).map((o) => o.status === 'fulfilled' && o.value[0])).toEqual([
      { id: 'k0', data: { a: 1 } },
      { id: 'k2', data: { c: 3 } },
      { id: 'k3', data: null },
    ]);
  });

  it('isolates a member whose guard fails: the others are written, it gets GuardFailed', async () => {
    const before = { ...stats() };
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => {
        const id = `p${i}`;
        const expected = i === 3 ? 'authorized' : 'processing';
        const update = db()
          .updateTable('gc_parent')
          .set({ status: 'authorized' })
          .where('id', '=', id)
          .where(sql`(status = ${expected}) is true`)
          .returningAll();
        return runGuardedWrites(
          db(),
          update,
          [
            db()
              .insertInto('gc_child')
              .values({ id: `${id}-c`, parent_id: id, seq: 3 }),
          ],
          { column: 'id', value: id },
        );
      }),
    );
    outcomes.forEach((outcome, i) => {
      if (i === 3) expect(outcome.status === 'rejected' && outcome.reason).toBeInstanceOf(GuardFailed);
      else
        expect(outcome.status === 'fulfilled' && (outcome.value as Array<{ status: string }>)[0]!.status).toBe(
          'authorized',
        );
    });
    expect(stats().fallbacks).toBeGreaterThan(before.fallbacks);
    const rows = await sql<{
      id: string;
      status: string;
    }>`select id, status from gc_parent where id in ('p0','p1','p2','p3','p4','p5','p6','p7','p8','p9') order by id`.execute(
      db(),
    );
    expect(rows.rows.filter((r) => r.status === 'authorized')).toHaveLength(9);
    const third = await sql<{ n: number }>`select count(*)::int as n from gc_child where id = 'p3-c'`.execute(db());
    expect(third.rows[0]!.n).toBe(0);
  });

  it('never lets two members update one row in one statement: each update counts', async () => {
    await sql`insert into gc_counter (id, n) values ('shared', 0)`.execute(db());
    const before = { ...stats() };
    await Promise.all(
      Array.from({ length: 8 }, (_, i) => {
        const id = `r${i}`;
        return runWrites(db(), [db().insertInto('gc_parent').values({ id, amount: 1, status: 'processing' })], {
          column: 'id',
          value: id,
        }).then(() => {
          const update = db().updateTable('gc_parent').set({ status: 'done' }).where('id', '=', id).returningAll();
          return runGuardedWrites(
            db(),
            update,
            [
              db()
                .updateTable('gc_counter')
                .set({ n: sql`n + ${1}` })
                .where('id', '=', 'shared'),
            ],
            { column: 'id', value: id },
          );
        });
      }),
    );
    const counter = await sql<{ n: number }>`select n from gc_counter where id = 'shared'`.execute(db());
    expect(counter.rows[0]!.n).toBe(8);
    expect(stats().fallbacks).toBeGreaterThanOrEqual(before.fallbacks);
  });

  it("groups inserts with an update of each member's own row, counting the updated rows", async () => {
    await sql`insert into gc_counter (id, n) values ('k1', 0), ('k2', 0), ('k3', 0)`.execute(db());
    const before = { ...stats() };
    const rows = await Promise.all(
      ['k1', 'k2', 'k3'].map((k) =>
        runWrites<{ id: string }>(
          db(),
          [
            db().updateTable('gc_counter').set({ n: 1 }).where('id', '=', k),
            db()
              .insertInto('gc_parent')
              .values({ id: `w-${k}`, amount: 1, status: 'processing' })
              .returningAll(),
          ],
          { column: 'id', value: `w-${k}` },
        ),
      ),
    );
    expect(rows.map((r) => r.map((x) => x.id))).toEqual([['w-k1'], ['w-k2'], ['w-k3']]);
    expect(stats().statements).toBeGreaterThan(before.statements);
    const counters = await sql<{
      n: number;
    }>`select sum(n)::int as n from gc_counter where id in ('k1', 'k2', 'k3')`.execute(db());
    expect(counters.rows[0]!.n).toBe(3);
    // One member's update finds no row: the group runs one by one, every member still gets its insert.
    const mixed = await Promise.all(
      ['k1', 'missing'].map((k) =>
        runWrites<{ id: string }>(
          db(),
          [
            db().updateTable('gc_counter').set({ n: 2 }).where('id', '=', k),
            db()
              .insertInto('gc_parent')
              .values({ id: `x-${k}`, amount: 1, status: 'processing' })
              .returningAll(),
          ],
          { column: 'id', value: `x-${k}` },
        ),
      ),
    );
    expect(mixed.map((r) => r.map((x) => x.id))).toEqual([['x-k1'], ['x-missing']]);
  });

  it('gives each member of a failing insert group its own answer', async () => {
    const results = await Promise.allSettled(
      ['q1', 'q2', 'p0', 'q3'].map((id) =>
        runWrites(db(), [db().insertInto('gc_parent').values({ id, amount: 1, status: 'processing' }).returningAll()], {
          column: 'id',
          value: id,
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((results[2] as PromiseRejectedResult).reason.code).toBe('23505');
  });

  it('reads for concurrent members in one statement: each gets exactly the rows its own equalities select', async () => {
    const before = { ...stats() };
    const asks = [
      ['p1', 'processing'],
      ['p1', 'processing'],
      ['p2', 'authorized'],
      ['p2', 'processing'],
      ['nope', 'processing'],
      ['p4', 'authorized'],
    ] as const;
    const results = await Promise.all(
      asks.map(([id, status]) =>
        readRows<{ id: string; status: string; amount: number }>(
          db(),
          db().selectFrom('gc_parent').selectAll().where('id', '=', id).where('status', '=', status),
        ),
      ),
    );
    const truth = await Promise.all(
      asks.map(([id, status]) =>
        db().selectFrom('gc_parent').selectAll().where('id', '=', id).where('status', '=', status).execute(),
      ),
    );
    expect(results).toEqual(truth);
    expect(results.map((r) => r.length)).toEqual([0, 0, 1, 0, 0, 1]);
    expect(results[2]![0]).not.toHaveProperty('svc_member');
    expect(stats().statements).toBeGreaterThan(before.statements);
  });

  it('takes a row once when concurrent members delete it, as racing deletes would', async () => {
    await sql`insert into gc_parent (id, amount, status) values ('d1', 1, 'held'), ('d2', 2, 'held')`.execute(db());
    const taken = await Promise.all(
      ['d1', 'd1', 'd2', 'd1', 'none'].map((id) =>
        readRows<{ id: string; amount: number }>(
          db(),
          db().deleteFrom('gc_parent').where('id', '=', id).where('status', '=', 'held').returning(['id', 'amount']),
        ),
      ),
    );
    expect(taken.filter((rows) => rows.length === 1 && rows[0]!.id === 'd1')).toHaveLength(1);
    expect(taken[2]).toEqual([{ id: 'd2', amount: 2 }]);
    expect(taken[4]).toEqual([]);
    const left = await sql<{ n: number }>`select count(*)::int as n from gc_parent where id in ('d1', 'd2')`.execute(
      db(),
    );
    expect(left.rows[0]!.n).toBe(0);
  });

  it('runs a member alone, exactly as without grouping, when nobody else is there', async () => {
    const before = { ...stats() };
    const rows = await runWrites<{ id: string }>(
      db(),
      [
        CompiledQuery.raw(`insert into gc_parent (id, amount, status) values ($1, $2, $3) returning id`, [
          'solo',
          5,
          'processing',
        ]),
      ],
      { column: 'id', value: 'solo' },
    );
    expect(rows).toEqual([{ id: 'solo' }]);
    expect(stats().statements).toBe(before.statements);
  });
});

describe('arrayLiteral', () => {
  // pg's own serialization of a JavaScript array parameter (pg/lib/utils.js has no types).
  const pgUtils = createRequire(import.meta.url)('pg/lib/utils.js') as { prepareValue(v: unknown): unknown };
  const pgText = (values: unknown[]) => pgUtils.prepareValue(values);

  it('writes the text pg writes for the same array, for any strings, numbers, booleans and nulls', () => {
    const element = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.constantFrom('"', '\\', '\\"', 'NULL', '', ' ', '{a,b}', '\\\\x00'),
      fc.integer(),
      fc.double({ noNaN: true }),
      fc.boolean(),
      fc.constant(null),
      fc.bigInt(),
    );
    fc.assert(
      fc.property(fc.array(element, { maxLength: 20 }), (values) => {
        expect(arrayLiteral(values, 'text')).toBe(pgText(values));
      }),
      { numRuns: 2000 },
    );
  });

  it('stringifies JSON values that are not text, and writes a timestamptz Date as its ISO instant', () => {
    expect(arrayLiteral([{ a: 'x"y' }, '{"b":1}', [1, 2], null], 'jsonb')).toBe(
      pgText([JSON.stringify({ a: 'x"y' }), '{"b":1}', '[1,2]', null]),
    );
    // The type as PostgreSQL names it in pg_prepared_statements, as the group committer reads it.
    expect(arrayLiteral([new Date('2026-12-01T20:30:40.123Z'), null], 'timestamp with time zone')).toBe(
      '{"2026-12-01T20:30:40.123Z",NULL}',
    );
    expect(arrayLiteral([new Date('2026-12-01T20:30:40.123Z')], 'timestamptz')).toBe('{"2026-12-01T20:30:40.123Z"}');
  });

  it('leaves to the driver what it does not know', () => {
    expect(arrayLiteral([Buffer.from([1])], 'bytea')).toBeNull();
    expect(arrayLiteral([new Date()], 'date')).toBeNull();
    expect(arrayLiteral([new Date()], 'timestamp without time zone')).toBeNull();
    expect(arrayLiteral([new Date(Number.NaN)], 'timestamptz')).toBeNull();
    expect(arrayLiteral([{ a: 1 }], 'text')).toBeNull();
    expect(arrayLiteral([[1]], 'int4')).toBeNull();
    expect(arrayLiteral([undefined], 'text')).toBeNull();
  });
});
