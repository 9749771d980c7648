import type { Deps } from '../../context.ts';
import type { PaymentLinkRow } from '../../db/schema-payment-links.ts';
import { toBuyerSnapshotResource } from '../buyers/buyers.schemas.ts';
import { toShippingSnapshotResource } from '../transactions/transaction.resource.ts';
import type { PaymentLink } from './payment-links.schemas.ts';

/** The hosted page of a link: the merchant account names the row (docs/payment-links.md, "The page's URL"). */
export const pageUrl = (deps: Deps, row: Pick<PaymentLinkRow, 'merchant_account_id' | 'id'>) =>
  `${deps.config.publicUrl}/pay/${encodeURIComponent(row.merchant_account_id)}/${row.id}`;

/** The only way a payment link row becomes a response or a webhook snapshot; `revealPii` false masks the buyer's personal data. */
export function toPaymentLinkResource(deps: Deps, row: PaymentLinkRow, revealPii: boolean): PaymentLink {
  return {
    type: 'payment-link',
    id: row.id,
    url: pageUrl(deps, row),
    status: row.status,
    amount: row.amount,
    country: row.country,
    currency: row.currency,
    intent: row.intent,
    payment_source: row.payment_source as PaymentLink['payment_source'],
    store: row.store,
    expires_at: row.expires_at.toISOString(),
    locale: row.locale,
    merchant_name: row.merchant_name,
    merchant_url: row.merchant_url,
    merchant_banner_url: row.merchant_banner_url,
    merchant_color: row.merchant_color,
    merchant_message: row.merchant_message,
    merchant_terms_and_conditions_url: row.merchant_terms_and_conditions_url,
    merchant_favicon_url: row.merchant_favicon_url,
    external_identifier: row.external_identifier,
    statement_descriptor: (row.statement_descriptor as PaymentLink['statement_descriptor']) ?? null,
    return_url: row.return_url,
    cart_items: (row.cart_items as PaymentLink['cart_items']) ?? null,
    metadata: row.metadata ?? null,
    buyer: toBuyerSnapshotResource(row.buyer, revealPii),
    buyer_id: row.buyer_id,
    shipping_details: toShippingSnapshotResource(row.shipping_details, revealPii),
    installment_count: row.installment_count,
    connection_options: (row.connection_options as PaymentLink['connection_options']) ?? null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
