import { randomBytes } from 'node:crypto';
import type { Executor } from '../../db/transaction.ts';

/**
 * Reads an instance-wide secret, creating it on first use. Every process sharing the database
 * gets the same value: the first insert wins and the others read it. A secret already stored costs
 * one read and no write.
 */
export async function getOrCreateSecret(db: Executor, key: string, bytes = 32): Promise<Buffer> {
  const read = () => db.selectFrom('instance_settings').select('value').where('key', '=', key).executeTakeFirst();
  const row =
    (await read()) ??
    (await db.insertInto('instance_settings').values({ key, value: randomBytes(bytes).toString('base64') }).onConflict((oc) => oc.column('key').doNothing()).returning('value').executeTakeFirst()) ??
    // Another process stored it between the read and the insert: its value is the one.
    (await read());
  if (!row) throw new Error(`instance setting ${key} is neither stored nor insertable`);
  return Buffer.from(row.value, 'base64');
}
