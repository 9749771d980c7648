import type { PayoutRow } from '../../db/schema-payouts.ts';
import { toBuyerSnapshotResource } from '../buyers/buyers.schemas.ts';
import { toPayoutMerchant, type Payout, type PayoutMerchantJson } from './payouts.schemas.ts';

const buyerOf = (row: PayoutRow, revealPii: boolean): Payout['buyer'] => toBuyerSnapshotResource(row.buyer, revealPii);

function paymentMethodOf(row: PayoutRow): Payout['payment_method'] {
  const pm = row.payment_method as Record<string, any>;
  return {
    type: 'payment-method',
    id: pm.id ?? null,
    method: pm.method ?? 'card',
    mode: pm.mode ?? 'card',
    scheme: pm.scheme ?? null,
    label: pm.label ?? null,
    expiration_date: pm.expiration_date ?? null,
    fingerprint: pm.fingerprint ?? null,
    country: null,
    currency: null,
    details: pm.bin ? { bin: pm.bin, card_type: null, card_issuer_name: null } : null,
    approval_url: null,
    approval_target: null,
    external_identifier: pm.external_identifier ?? null,
    last_replaced_at: null,
    payment_account_reference: null,
  };
}

/** The only way a payout row becomes a response or a webhook snapshot; `revealPii` false masks the buyer's billing details. */
export function toPayoutResource(row: PayoutRow, revealPii: boolean): Payout {
  const service = row.payment_service;
  return {
    type: 'payout',
    id: row.id,
    merchant_account_id: row.merchant_account_id,
    status: row.status,
    amount: row.amount,
    currency: row.currency,
    category: row.category,
    external_identifier: row.external_identifier,
    payment_method: paymentMethodOf(row),
    payment_service: {
      type: 'payment-service',
      id: service.id,
      method: 'card',
      payment_service_definition_id: service.payment_service_definition_id,
      display_name: service.display_name,
    },
    payment_service_payout_id: row.payment_service_payout_id,
    buyer: buyerOf(row, revealPii),
    merchant: toPayoutMerchant(row.merchant as PayoutMerchantJson | null),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
