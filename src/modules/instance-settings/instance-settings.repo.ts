import { randomBytes } from 'node:crypto';
import type { Executor } from '../../db/transaction.ts';

/**
 * Reads an instance-wide secret, creating it on first use. Every process sharing the database
 * gets the same value: the first insert wins and the others read it.
 */
export async function getOrCreateSecret(db: Executor, key: string, bytes = 32): Promise<Buffer> {
  await db
    .insertInto('instance_settings')
    .values({ key, value: randomBytes(bytes).toString('base64') })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const row = await db.selectFrom('instance_settings').select('value').where('key', '=', key).executeTakeFirstOrThrow();
  return Buffer.from(row.value, 'base64');
}
