import type { Deps } from '../../src/context.ts';
import { uuidv7 } from '../../src/lib/ids.ts';
import { insertMerchantAccount } from '../../src/modules/merchant-accounts/merchant-accounts.repo.ts';

/** A fresh merchant account for one test, so tests never share state. */
export async function createMerchantAccount(
  deps: Deps,
  overrides: { id?: string; display_name?: string } = {},
): Promise<string> {
  const id = overrides.id ?? `ma-${uuidv7().slice(-12)}`;
  await insertMerchantAccount(deps.db, { id, display_name: overrides.display_name ?? `Merchant ${id}` });
  return id;
}
