import pg from 'pg';
import { shapedQuery } from './row-shapes.ts';
import { isCachedPlanChange, StatementNames } from './statement-names.ts';

/**
 * Named prepared statements for the `pg` driver. Kysely sends every query as an unnamed
 * statement, so PostgreSQL parses and plans it each time; on the transaction hot path planning
 * cost more than running (0.2-0.3 ms a statement against tables with many indexes). Hot texts get a
 * name (statement-names.ts, one budget for the process): each connection then parses a named text
 * once and binds it after that.
 *
 * A prepared `SELECT *` fails with "cached plan must not change result type" if a migration alters
 * its table while this process runs: the text is then never named again, and the failing query is
 * retried unnamed once when it ran outside a transaction (inside one, the transaction's retry in
 * `withTransaction` runs it again).
 */

const names = new StatementNames('svc_');

export { isCachedPlanChange };

/** A `pg` client that names hot query texts (see above); everything else goes through unchanged. */
export class PreparingClient extends pg.Client {
  // pg's overloads are many; Kysely calls query(text, values), which is the one handled here.
  // biome-ignore lint/suspicious/noExplicitAny: overrides every overload of pg's Client.query, whose signatures use any
  override query(...args: any[]): any {
    const [text, values] = args as [unknown, unknown];
    // Without parameters pg uses the simple protocol, which also runs several statements in one
    // text (a prepared statement cannot); there is no plan worth keeping for those anyway.
    if (typeof text !== 'string' || !Array.isArray(values) || values.length === 0 || args.length !== 2)
      return (super.query as (...a: unknown[]) => unknown)(...args);
    const name = names.nameFor(text);
    if (!name) return super.query(text, values);
    // Rows built from the statement's remembered columns (row-shapes.ts).
    const run = () =>
      new Promise<pg.QueryResult>((resolve, reject) =>
        super.query(shapedQuery({ name, text, values }, (error, result) => (error ? reject(error) : resolve(result)))),
      );
    return run().catch((error: unknown) => {
      if (!isCachedPlanChange(error)) throw error;
      names.ban(text);
      // Outside a transaction (pg's private ready-for-query status 'I') the query can simply run again.
      if ((this as unknown as { _txStatus?: string })._txStatus === 'I') return super.query(text, values);
      throw error;
    });
  }
}
