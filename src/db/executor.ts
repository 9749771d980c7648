import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema.ts';

/**
 * The database types every layer passes around, in a file of their own: client.ts opens the
 * database with change-feed.ts and group-commit.ts, which take a `Db` themselves (client.ts and
 * transaction.ts re-export these).
 */

export type Db = Kysely<Database>;

/** A pool or a transaction: what repo functions take as their first argument. */
export type Executor = Db | Transaction<Database>;
export type Tx = Transaction<Database>;
