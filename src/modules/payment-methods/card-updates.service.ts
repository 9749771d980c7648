import type { Deps } from '../../context.ts';
import type { PaymentMethodRow } from '../../db/schema.ts';
import type { Executor, Tx } from '../../db/transaction.ts';
import { bin, last4, validateCardNumber } from '../../lib/card-schemes.ts';
import * as repo from './payment-methods.repo.ts';

/**
 * Card changes made by the platform itself (the account updater), not by a request. Callers pass
 * their transaction and lock the rows first with `lockPaymentMethods`.
 */

const numberBinding = (row: PaymentMethodRow) => ({ table: 'payment_methods', column: 'number', rowId: row.id });

/** The stored methods among `ids` in a merchant account, locked FOR UPDATE (unknown ids are left out). */
export async function lockPaymentMethods(
  tx: Tx,
  merchantAccountId: string,
  ids: readonly string[],
): Promise<PaymentMethodRow[]> {
  return repo.lockPaymentMethods(tx, merchantAccountId, ids);
}

/** The card number of a stored card, from the vault. Keep it in memory only: never log or store it. */
export async function readCardNumber(
  db: Executor,
  deps: Pick<Deps, 'vault'>,
  row: PaymentMethodRow,
): Promise<string | null> {
  if (!row.number_ciphertext || !row.number_key_id) return null;
  return deps.vault.decrypt(
    db,
    row.merchant_account_id,
    { ciphertext: row.number_ciphertext, keyId: row.number_key_id },
    numberBinding(row),
  );
}

/** A new number for the card: sealed again bound to the same row, with its own fingerprint, BIN and label. */
export async function replaceCardNumber(
  tx: Tx,
  deps: Pick<Deps, 'vault'>,
  row: PaymentMethodRow,
  number: string,
  now: Date,
): Promise<PaymentMethodRow> {
  const check = validateCardNumber(number);
  if (!check.ok) throw new Error('the replacement card number is not valid');
  const sealed = await deps.vault.encrypt(tx, row.merchant_account_id, number, numberBinding(row));
  return repo.updatePaymentMethod(tx, row.merchant_account_id, row.id, {
    number_ciphertext: sealed.ciphertext,
    number_key_id: sealed.keyId,
    fingerprint: await deps.vault.fingerprint(tx, row.merchant_account_id, number),
    scheme: check.scheme,
    bin: bin(number),
    last4: last4(number),
    last_replaced_at: now,
    updated_at: now,
  });
}

export async function replaceExpirationDate(
  tx: Tx,
  row: PaymentMethodRow,
  expirationDate: string,
  now: Date,
): Promise<PaymentMethodRow> {
  return repo.updatePaymentMethod(tx, row.merchant_account_id, row.id, {
    expiration_date: expirationDate,
    last_replaced_at: now,
    updated_at: now,
  });
}

/** The issuer closed the account: the method can no longer be used (status `failed`). */
export async function markCardClosed(tx: Tx, row: PaymentMethodRow, now: Date): Promise<PaymentMethodRow> {
  return repo.updatePaymentMethod(tx, row.merchant_account_id, row.id, { status: 'failed', updated_at: now });
}
