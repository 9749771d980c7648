import { createQueryId, RawNode, type Compilable, type CompiledQuery } from 'kysely';
import type { Executor } from './transaction.ts';

/**
 * What insert-query.ts and keyed-queries.ts share to write the hot statements' text as Kysely's
 * compiler would, without building and walking its operation tree for each request: the
 * identifier quoting, the test for an expression, a bounded cache of texts, and the compiled query.
 */

/** Kysely's identifier: in double quotes, a double quote doubled. */
export const identifier = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** A Kysely expression (`sql\`…\``, a subquery): it compiles to SQL, not to a parameter. */
export const isExpression = (value: unknown): boolean =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as { toOperationNode?: unknown }).toOperationNode === 'function';

/** A statement's text, with the node Kysely's `CompiledQuery.raw` would make for it (built once). */
export interface StatementText {
  readonly sql: string;
  readonly node: RawNode;
}

/** Texts by a key naming everything the text depends on; at most `max` kept (the rest built each time). */
export class TextCache {
  private readonly texts = new Map<string, StatementText>();

  constructor(private readonly max = 1000) {}

  get(key: string, build: () => string): StatementText {
    let text = this.texts.get(key);
    if (text === undefined) {
      const sql = build();
      text = { sql, node: RawNode.createWithSql(sql) };
      if (this.texts.size < this.max) this.texts.set(key, text);
    }
    return text;
  }
}

/**
 * `CompiledQuery.raw(text, parameters)`, less its four `Object.freeze` calls per statement (the
 * node is the text's, frozen once; the parameters are a fresh array nobody else holds).
 */
export const compiledQuery = <R>(text: StatementText, parameters: unknown[]): CompiledQuery<R> => ({
  sql: text.sql,
  query: text.node,
  parameters,
  queryId: createQueryId(),
});

/** A statement compiled once, as Kysely would have: `compile()` for the batching helpers (write-batch.ts), `execute()` alone. */
export class PrecompiledQuery<R = unknown> implements Compilable<R> {
  constructor(
    private readonly db: Executor,
    private readonly compiled: CompiledQuery<R>,
  ) {}

  compile(): CompiledQuery<R> {
    return this.compiled;
  }

  /** The rows it returned (none for a statement without `returning`). */
  async execute(): Promise<R[]> {
    return (await this.db.executeQuery(this.compiled)).rows;
  }
}
