import type { Deps } from '../../context.ts';
import type { ApiKeyPairRow } from '../../db/schema.ts';
import { withTransaction } from '../../db/transaction.ts';
import { notFound } from '../../errors/app-error.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { findMerchantAccount } from '../merchant-accounts/merchant-accounts.repo.ts';
import * as repo from './api-key-pairs.repo.ts';
import { generateEs512KeyPair } from './key-material.ts';

export interface CreatedKeyPair {
  id: string;
  thumbprint: string;
  privateKeyPem: string;
}

/** Generates and registers an ES512 key pair. The private key is returned once and never stored. */
export async function createKeyPair(deps: Deps, input: { displayName: string; merchantAccountId: string | null }): Promise<CreatedKeyPair> {
  const generated = await generateEs512KeyPair();
  const row = await withTransaction(deps.db, async (tx) => {
    if (input.merchantAccountId !== null && !(await findMerchantAccount(tx, input.merchantAccountId))) {
      throw notFound('merchant account', input.merchantAccountId);
    }
    return repo.insertKeyPair(tx, {
      id: uuidv7(),
      thumbprint: generated.thumbprint,
      publicJwk: generated.publicJwk,
      displayName: input.displayName,
      merchantAccountId: input.merchantAccountId,
    });
  });
  return { id: row.id, thumbprint: row.thumbprint, privateKeyPem: generated.privateKeyPem };
}

export async function listKeyPairs(deps: Deps): Promise<ApiKeyPairRow[]> {
  return repo.listKeyPairs(deps.db);
}

export async function revokeKeyPair(deps: Deps, idOrThumbprint: string): Promise<ApiKeyPairRow> {
  const found = await repo.findKeyPair(deps.db, idOrThumbprint);
  if (!found) throw notFound('key pair', idOrThumbprint);
  const row = await repo.revokeKeyPair(deps.db, found.id);
  deps.keyPairs.invalidate(found.thumbprint);
  return row!;
}
