import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestRuntime } from '../../test/helpers/build-test-app.ts';
import type { Runtime } from '../deps.ts';
import { combine, GuardFailed, guarded, runGuardedWrites, runWrites } from './write-batch.ts';

describe('combine (pure)', () => {
  it('renumbers the parameters of each write after the ones before it', () => {
    const q = combine([
      CompiledQuery.raw('insert into a (x, y) values ($1, $2)', [1, 2]),
      CompiledQuery.raw('update b set z = $1 where id = $2', [3, 4]),
      CompiledQuery.raw('insert into c (v) values ($1) returning *', [5]),
    ]);
    expect(q.sql).toBe(
      'with w1 as (insert into a (x, y) values ($1, $2)), w2 as (update b set z = $3 where id = $4) insert into c (v) values ($5) returning *',
    );
    expect(q.parameters).toEqual([1, 2, 3, 4, 5]);
  });

  it('renumbers two-digit parameters as numbers, not text', () => {
    const many = Array.from({ length: 12 }, (_, i) => `$${i + 1}`).join(', ');
    const q = combine([
      CompiledQuery.raw('insert into a values ($1)', [0]),
      CompiledQuery.raw(
        `insert into b values (${many})`,
        Array.from({ length: 12 }, (_, i) => i),
      ),
    ]);
    expect(q.sql).toContain('values ($2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)');
  });

  it('leaves a single write as it is', () => {
    const only = CompiledQuery.raw('insert into a values ($1)', [1]);
    expect(combine([only])).toBe(only);
  });
});

describe('runWrites (database)', () => {
  let runtime: Runtime;
  let dispose: () => Promise<void>;
  beforeAll(async () => {
    ({ runtime, dispose } = await openTestRuntime());
    const db = runtime.deps.db;
    await sql`create table wb_parent (id int primary key, name text not null)`.execute(db);
    await sql`create table wb_child (id int primary key, parent_id int not null references wb_parent (id), note text check (note <> 'bad'))`.execute(
      db,
    );
  });
  afterAll(async () => dispose?.());

  const db = () => runtime.deps.db as any;

  it('writes a parent and a child referencing it in one statement, returning the last write', async () => {
    const rows = await runWrites<{ id: number }>(db(), [
      db().insertInto('wb_child').values({ id: 1, parent_id: 1, note: 'x' }),
      db().insertInto('wb_parent').values({ id: 1, name: 'p' }).returning('id'),
    ]);
    expect(rows).toEqual([{ id: 1 }]);
    const children = await db().selectFrom('wb_child').selectAll().execute();
    expect(children).toEqual([{ id: 1, parent_id: 1, note: 'x' }]);
  });

  it('writes nothing when one of the writes fails', async () => {
    await expect(
      runWrites(db(), [
        db().insertInto('wb_parent').values({ id: 2, name: 'q' }),
        db().insertInto('wb_child').values({ id: 2, parent_id: 2, note: 'bad' }),
      ]),
    ).rejects.toThrow();
    expect(await db().selectFrom('wb_parent').selectAll().where('id', '=', 2).execute()).toEqual([]);
  });

  it('runs writes holding a literal one by one, in order', async () => {
    const rows = await runWrites<{ name: string }>(db(), [
      db()
        .insertInto('wb_parent')
        .values({ id: 3, name: sql.lit('lit') }),
      db().updateTable('wb_parent').set({ name: 'changed' }).where('id', '=', 3).returning('name'),
    ]);
    expect(rows).toEqual([{ name: 'changed' }]);
  });

  it('a guarded update writes itself and the writes recording it, returning the updated row', async () => {
    await db().insertInto('wb_parent').values({ id: 10, name: 'open' }).execute();
    const update = db()
      .updateTable('wb_parent')
      .set({ name: 'closed' })
      .where('id', '=', 10)
      .where('name', '=', 'open')
      .returningAll();
    const rows = await runGuardedWrites(db(), update, [
      db().insertInto('wb_child').values({ id: 10, parent_id: 10, note: 'closed it' }),
    ]);
    expect(rows).toEqual([{ id: 10, name: 'closed' }]);
    expect(await db().selectFrom('wb_child').selectAll().where('id', '=', 10).execute()).toEqual([
      { id: 10, parent_id: 10, note: 'closed it' },
    ]);
  });

  it('a guarded update that finds no row writes nothing at all and throws GuardFailed', async () => {
    await db().insertInto('wb_parent').values({ id: 11, name: 'closed' }).execute();
    const update = db()
      .updateTable('wb_parent')
      .set({ name: 'closed again' })
      .where('id', '=', 11)
      .where('name', '=', 'open')
      .returningAll();
    await expect(
      runGuardedWrites(db(), update, [
        db().insertInto('wb_child').values({ id: 11, parent_id: 11, note: 'x' }),
        db().insertInto('wb_parent').values({ id: 12, name: 'y' }),
      ]),
    ).rejects.toBeInstanceOf(GuardFailed);
    expect(await db().selectFrom('wb_child').selectAll().where('id', '=', 11).execute()).toEqual([]);
    expect(await db().selectFrom('wb_parent').selectAll().where('id', 'in', [11, 12]).execute()).toEqual([
      { id: 11, name: 'closed' },
    ]);
  });

  it('a guarded update with a write that cannot be combined runs nothing and answers null', async () => {
    await db().insertInto('wb_parent').values({ id: 13, name: 'open' }).execute();
    const update = db().updateTable('wb_parent').set({ name: 'closed' }).where('id', '=', 13).returningAll();
    expect(
      await runGuardedWrites(db(), update, [
        db()
          .insertInto('wb_child')
          .values({ id: 13, parent_id: 13, note: sql.lit('lit') }),
      ]),
    ).toBeNull();
    expect(await db().selectFrom('wb_parent').select('name').where('id', '=', 13).execute()).toEqual([
      { name: 'open' },
    ]);
  });
});

describe('guarded (pure)', () => {
  it('puts the update first, renumbers the rest and selects the updated rows behind the guard', () => {
    const q = guarded([
      CompiledQuery.raw('update a set x = $1 where id = $2 returning *', [1, 2]),
      CompiledQuery.raw('insert into b (v) values ($1)', [3]),
    ]);
    expect(q.sql).toBe(
      "with u as (update a set x = $1 where id = $2 returning *), w1 as (insert into b (v) values ($3)) select u.* from (values (svc_require(exists (select 1 from u), 'guarded update found no row'))) as guard (ok) left join u on true",
    );
    expect(q.parameters).toEqual([1, 2, 3]);
  });
});
