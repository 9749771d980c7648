import fc from 'fast-check';
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import {
  columnIs,
  columnPlus,
  compileSelectByKeys,
  compileUpdateByKeys,
  updateByKeysQuery,
  type Keys,
} from './keyed-queries.ts';

// Kysely compiling for PostgreSQL without a database: the statements ours must equal.
const kysely = new Kysely<any>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

/** `sql` called as a tag with these fragments (a template's strings) and values. */
const rawTemplate = (fragments: string[], values: unknown[]) =>
  sql(Object.assign([...fragments], { raw: [...fragments] }) as unknown as TemplateStringsArray, ...values);

const plain = (compiled: { sql: string; parameters: ReadonlyArray<unknown> } | null) =>
  compiled && { sql: compiled.sql, parameters: [...compiled.parameters] };

const kyselySelect = (table: string, keys: Keys, forUpdate = false) => {
  let query = kysely.selectFrom(table).selectAll();
  for (const [column, value] of keys) query = query.where(column, '=', value);
  return plain((forUpdate ? query.forUpdate() : query).compile());
};

/** The authorization's guard, as transactions.repo.ts writes it. */
const statusIsTrue = (status: string) => sql<boolean>`(status = ${status}) is true`;
const guard = (statusIs: string | undefined) => (statusIs === undefined ? [] : [statusIsTrue(statusIs)]);

const kyselyUpdate = (
  table: string,
  patch: Record<string, unknown>,
  keys: Keys,
  statusIs: string | undefined,
  returningAll: boolean,
) => {
  let query = kysely.updateTable(table).set(patch);
  for (const [column, value] of keys) query = query.where(column, '=', value);
  for (const condition of guard(statusIs)) query = query.where(condition);
  return plain((returningAll ? query.returningAll() : query).compile());
};

const keyed: Keys = [
  ['merchant_account_id', 'm-1'],
  ['id', 'id-1'],
];

describe('compileSelectByKeys', () => {
  it('compiles a read by key as Kysely does', () => {
    expect(plain(compileSelectByKeys('payment_methods', keyed))).toEqual(kyselySelect('payment_methods', keyed));
    expect(plain(compileSelectByKeys('payment_methods', keyed))).toEqual({
      sql: 'select * from "payment_methods" where "merchant_account_id" = $1 and "id" = $2',
      parameters: ['m-1', 'id-1'],
    });
  });

  it('compiles a locking read by key as Kysely does, kept apart from the plain read', () => {
    expect(plain(compileSelectByKeys('transactions', keyed, { forUpdate: true }))).toEqual(
      kyselySelect('transactions', keyed, true),
    );
    expect(compileSelectByKeys('transactions', keyed, { forUpdate: true }).sql).toBe(
      'select * from "transactions" where "merchant_account_id" = $1 and "id" = $2 for update',
    );
    expect(compileSelectByKeys('transactions', keyed).sql).toBe(
      'select * from "transactions" where "merchant_account_id" = $1 and "id" = $2',
    );
  });

  it('agrees with Kysely on any table, key columns and values', () => {
    const name = fc.string({ minLength: 1, maxLength: 8 }).filter((s) => !s.includes('.'));
    const keys = fc.array(fc.tuple(name, fc.oneof(fc.integer(), fc.string(), fc.constant(null))), {
      minLength: 1,
      maxLength: 3,
    });
    fc.assert(
      fc.property(
        name,
        keys,
        fc.boolean(),
        (table, generated, forUpdate) =>
          void expect(plain(compileSelectByKeys(table, generated, { forUpdate }))).toEqual(
            kyselySelect(table, generated, forUpdate),
          ),
      ),
    );
  });
});

describe('compileUpdateByKeys', () => {
  it('compiles a guarded update as Kysely does, leaving out undefined values', () => {
    const patch = {
      status: 'authorized',
      amount: 10,
      error_code: null,
      at: new Date(0),
      raw: Buffer.from([1]),
      list: ['x'],
      data: { k: 1 },
      skipped: undefined,
      'odd"name': true,
    };
    expect(
      plain(compileUpdateByKeys('transactions', patch, keyed, { conditions: guard('processing'), returningAll: true })),
    ).toEqual(kyselyUpdate('transactions', patch, keyed, 'processing', true));
    expect(plain(compileUpdateByKeys('transaction_attempts', patch, keyed))).toEqual(
      kyselyUpdate('transaction_attempts', patch, keyed, undefined, false),
    );
  });

  it('agrees with Kysely on any patch of plain values, with and without the status guard and returning', () => {
    const value = fc.oneof(
      fc.constant(undefined),
      fc.constant(null),
      fc.integer(),
      fc.string(),
      fc.date({ noInvalidDate: true }),
      fc.array(fc.string(), { maxLength: 2 }),
    );
    const patch = fc.dictionary(fc.constantFrom('a', 'b', 'c', 'updated_at', 'we"ird'), value);
    fc.assert(
      fc.property(
        patch,
        fc.option(fc.constantFrom('processing', 'authorized'), { nil: undefined }),
        fc.boolean(),
        (generated, statusIs, returningAll) => {
          // Kysely refuses an update that sets nothing; ours declines it (null) and lets Kysely say so.
          if (Object.values(generated).every((v) => v === undefined)) {
            expect(
              compileUpdateByKeys('t', generated, keyed, { conditions: guard(statusIs), returningAll }),
            ).toBeNull();
            return;
          }
          expect(
            plain(compileUpdateByKeys('t', generated, keyed, { conditions: guard(statusIs), returningAll })),
          ).toEqual(kyselyUpdate('t', generated, keyed, statusIs, returningAll));
        },
      ),
    );
  });

  it("gives the same text to every update of the same columns, with that update's values", () => {
    const first = compileUpdateByKeys('t', { a: 1, b: 'x' }, keyed, { conditions: guard('s') })!;
    const second = compileUpdateByKeys(
      't',
      { a: 2, b: 'y' },
      [
        ['merchant_account_id', 'm-2'],
        ['id', 'id-2'],
      ],
      { conditions: guard('r') },
    )!;
    expect(second.sql).toBe(first.sql);
    expect(second.parameters).toEqual([2, 'y', 'm-2', 'id-2', 'r']);
    // Another column order is another text (Kysely's too: the object's order).
    expect(compileUpdateByKeys('t', { b: 'x', a: 1 }, keyed, { conditions: guard('s') })!.sql).not.toBe(first.sql);
  });

  it('writes a sql template of plain values as Kysely does (the capture limit read in the same statement)', () => {
    const limit = (account: string, amount: number) =>
      sql<number>`${amount}::bigint + coalesce((select least(ma.over_capture_amount, (${amount}::bigint * ma.over_capture_percentage) / 100) from merchant_accounts ma where ma.id = ${account}), 0)`;
    const patch = {
      status: 'authorized',
      capture_limit: limit('m-1', 500),
      authorized_amount: 500,
      updated_at: new Date(0),
    };
    const ours = plain(
      compileUpdateByKeys('transactions', patch, keyed, { conditions: guard('processing'), returningAll: true }),
    );
    expect(ours).toEqual(kyselyUpdate('transactions', patch, keyed, 'processing', true));
    expect(ours!.parameters).toEqual(['authorized', 500, 500, 'm-1', 500, new Date(0), 'm-1', 'id-1', 'processing']);
    // Same template, other values: the same text.
    const again = compileUpdateByKeys('transactions', { ...patch, capture_limit: limit('m-2', 7) }, keyed, {
      conditions: guard('processing'),
      returningAll: true,
    })!;
    expect(again.sql).toBe(ours!.sql);
    expect(again.parameters.slice(1, 4)).toEqual([7, 7, 'm-2']);
    // Another template in the same place is another text.
    expect(
      compileUpdateByKeys('transactions', { ...patch, capture_limit: sql<number>`${1}::bigint` }, keyed, {
        conditions: guard('processing'),
        returningAll: true,
      })!.sql,
    ).not.toBe(ours!.sql);
  });

  it('agrees with Kysely on templates of any fragments and values among plain values', () => {
    const fragment = fc.string({ maxLength: 6 });
    const template = fc
      .tuple(
        fc.array(fragment, { minLength: 1, maxLength: 4 }),
        fc.array(fc.oneof(fc.integer(), fc.string(), fc.constant(null)), { maxLength: 3 }),
      )
      .map(([fragments, values]) => {
        const parts = fragments.slice(0, values.length + 1);
        while (parts.length < values.length + 1) parts.push(' ');
        return rawTemplate(parts, values.slice(0, parts.length - 1));
      });
    const patch = fc.dictionary(
      fc.constantFrom('a', 'b', 'c'),
      fc.oneof(fc.integer(), fc.constant(undefined), template),
      { minKeys: 1 },
    );
    fc.assert(
      fc.property(patch, fc.boolean(), (generated, returningAll) => {
        fc.pre(Object.values(generated).some((v) => v !== undefined));
        expect(plain(compileUpdateByKeys('t', generated, keyed, { conditions: guard('x'), returningAll }))).toEqual(
          kyselyUpdate('t', generated, keyed, 'x', returningAll),
        );
      }),
    );
  });

  it("writes a capture's guarded update as Kysely wrote it with eb(column, '+', amount) and sql.ref guards", () => {
    const basis = { status: 'authorized', captured_amount: 0, updated_at: new Date(5) };
    const byKysely = kysely
      .updateTable('transactions')
      .set((eb) => ({
        status: 'capture_succeeded',
        captured_amount: eb('captured_amount', '+', 300),
        capture_reserved: eb('capture_reserved', '+', -300),
        updated_at: new Date(6),
      }))
      .where('merchant_account_id', '=', 'm-1')
      .where('id', '=', 'id-1')
      .where(sql<boolean>`(${sql.ref('status')} = ${basis.status}) is true`)
      .where(sql<boolean>`(${sql.ref('captured_amount')} = ${basis.captured_amount}) is true`)
      .where(sql<boolean>`(${sql.ref('updated_at')} = ${basis.updated_at}) is true`)
      .returningAll()
      .compile();
    const patch = {
      status: 'capture_succeeded',
      captured_amount: columnPlus('captured_amount', 300),
      capture_reserved: columnPlus('capture_reserved', -300),
      updated_at: new Date(6),
    };
    const conditions = Object.entries(basis).map(([column, value]) => columnIs(column, value));
    const ours = compileUpdateByKeys('transactions', patch, keyed, { conditions, returningAll: true });
    expect(plain(ours)).toEqual(plain(byKysely));
    expect(ours!.sql).toBe(
      'update "transactions" set "status" = $1, "captured_amount" = "captured_amount" + $2, "capture_reserved" = "capture_reserved" + $3, "updated_at" = $4 where "merchant_account_id" = $5 and "id" = $6 and ("status" = $7) is true and ("captured_amount" = $8) is true and ("updated_at" = $9) is true returning *',
    );
    // Other guards are another text; the same guards with other values, the same.
    expect(
      compileUpdateByKeys('transactions', patch, keyed, { conditions: conditions.slice(0, 2), returningAll: true })!
        .sql,
    ).not.toBe(ours!.sql);
    expect(
      compileUpdateByKeys('transactions', patch, keyed, {
        conditions: [columnIs('status', 'x'), columnIs('captured_amount', 1), columnIs('updated_at', new Date(7))],
        returningAll: true,
      })!.sql,
    ).toBe(ours!.sql);
  });

  it('agrees with Kysely on patches and guards of column references, values and plain values', () => {
    const column = fc.constantFrom('a', 'b', 'we"ird');
    const value = fc.oneof(fc.integer(), fc.string(), fc.constant(null));
    const patch = fc.dictionary(
      column,
      fc.oneof(
        value,
        fc.tuple(column, fc.integer()).map(([c, n]) => columnPlus(c, n)),
      ),
      { minKeys: 1 },
    );
    const conditions = fc.array(
      fc.tuple(column, value).map(([c, v]) => columnIs(c, v)),
      { maxLength: 3 },
    );
    fc.assert(
      fc.property(patch, conditions, (generated, guards) => {
        let query = kysely.updateTable('t').set(generated);
        for (const [c, v] of keyed) query = query.where(c, '=', v);
        for (const condition of guards) query = query.where(condition);
        expect(plain(compileUpdateByKeys('t', generated, keyed, { conditions: guards }))).toEqual(
          plain(query.compile()),
        );
      }),
    );
  });

  it('leaves any other expression to Kysely, which compiles it', () => {
    for (const expression of [
      sql`${sql.ref('t.captured_amount')} + ${5}`,
      sql`${sql.lit(5)}`,
      sql`${sql`now()`}`,
      kysely.selectFrom('limits').select('amount').where('id', '=', 'x'),
    ]) {
      const patch = { a: 1, captured_amount: expression };
      expect(compileUpdateByKeys('t', patch, keyed)).toBeNull();
      const statement = updateByKeysQuery(kysely, 't' as never, patch, keyed, {
        conditions: guard('authorized'),
        returningAll: true,
      });
      expect(plain(statement.compile())).toEqual(kyselyUpdate('t', patch, keyed, 'authorized', true));
      // In a condition too.
      expect(compileUpdateByKeys('t', { a: 1 }, keyed, { conditions: [sql<boolean>`${expression} > 0`] })).toBeNull();
    }
  });
});
