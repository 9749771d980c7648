import type { PaymentMethodRow } from '../../db/schema.ts';
import type { UpdatePaymentMethodBody } from './payment-methods.schemas.ts';

type Patch = Partial<
  Pick<
    PaymentMethodRow,
    'expiration_date' | 'scheme_transaction_id' | 'scheme_transaction_id_scheme' | 'transaction_link_id'
  >
>;

/**
 * Pure: the columns `PUT /payment-methods/{id}` changes, only those whose value differs. Omitted
 * leaves a field as it is; null clears it, except `expiration_date` (a stored card keeps one: null
 * leaves it). Clearing `scheme_transaction_id` clears its scheme too; setting it without a scheme,
 * when none is stored, takes the card's own scheme.
 */
export function updatePatch(row: PaymentMethodRow, body: UpdatePaymentMethodBody): Patch {
  const next: Patch = {};
  if (body.expiration_date) next.expiration_date = body.expiration_date;
  if (body.transaction_link_id !== undefined) next.transaction_link_id = body.transaction_link_id;
  if (body.scheme_transaction_id_scheme !== undefined)
    next.scheme_transaction_id_scheme = body.scheme_transaction_id_scheme;
  if (body.scheme_transaction_id === null)
    Object.assign(next, { scheme_transaction_id: null, scheme_transaction_id_scheme: null });
  if (typeof body.scheme_transaction_id === 'string') {
    next.scheme_transaction_id = body.scheme_transaction_id;
    if (body.scheme_transaction_id_scheme === undefined && row.scheme_transaction_id_scheme === null)
      next.scheme_transaction_id_scheme = row.scheme;
  }
  return Object.fromEntries(Object.entries(next).filter(([key, value]) => row[key as keyof Patch] !== value)) as Patch;
}
