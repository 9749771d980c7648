import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import type { Deps } from './context.ts';
import { withTransaction } from './db/transaction.ts';
import { uuidv7 } from './lib/ids.ts';
import { countKeyPairs, insertKeyPair } from './modules/api-key-pairs/api-key-pairs.repo.ts';
import { describePrivateKeyPem, generateEs512KeyPair } from './modules/api-key-pairs/key-material.ts';
import { countMerchantAccounts, insertMerchantAccount } from './modules/merchant-accounts/merchant-accounts.repo.ts';

export const BOOTSTRAP_KEY_FILE = 'private_key.pem';

export interface BootstrapResult {
  /** Where the bootstrap private key is (or would be) kept. */
  keyFile: string;
  /** A key pair was registered on this start. */
  created: boolean;
  /** The key file existed and was imported instead of generating a new key. */
  imported: boolean;
  thumbprint: string | null;
}

/**
 * First start on an empty database: creates the merchant account `default` and an instance-wide
 * ES512 key pair, writing its private key to `<DATA_DIR>/private_key.pem` (mode 0600). An existing
 * key file is never overwritten: its key is registered instead. An advisory lock makes processes
 * that start together on one database do this once.
 */
export async function bootstrap(deps: Deps): Promise<BootstrapResult> {
  const keyFile = path.join(deps.config.dataDir, BOOTSTRAP_KEY_FILE);
  return withTransaction(deps.db, async (tx) => {
    await sql`SELECT pg_advisory_xact_lock(hashtext(current_schema() || ':svc-bootstrap'))`.execute(tx);
    // Requests without a merchant account header act on `default`: it exists from the first start,
    // even when key pairs were created with `svc keys create` before it.
    if ((await countMerchantAccounts(tx)) === 0)
      await insertMerchantAccount(tx, { id: 'default', display_name: 'Default' });
    if ((await countKeyPairs(tx)) > 0) return { keyFile, created: false, imported: false, thumbprint: null };
    let publicJwk: Record<string, string>;
    let thumbprint: string;
    let imported = false;
    if (fs.existsSync(keyFile)) {
      ({ publicJwk, thumbprint } = await describePrivateKeyPem(fs.readFileSync(keyFile, 'utf8')));
      imported = true;
    } else {
      const generated = await generateEs512KeyPair();
      ({ publicJwk, thumbprint } = generated);
      fs.mkdirSync(path.dirname(keyFile), { recursive: true, mode: 0o700 });
      // Written before the commit: should the commit fail, the next start imports this file.
      fs.writeFileSync(keyFile, generated.privateKeyPem, { mode: 0o600, flag: 'wx' });
    }
    await insertKeyPair(tx, { id: uuidv7(), thumbprint, publicJwk, displayName: 'bootstrap', merchantAccountId: null });
    return { keyFile, created: true, imported, thumbprint };
  });
}
