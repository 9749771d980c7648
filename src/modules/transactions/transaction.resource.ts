import type { TransactionRow } from '../../db/schema-transactions.ts';
import { toAddressResource } from '../../http/schemas/address.ts';
import { uuidToBase62 } from '../../lib/base62.ts';
import { toBuyerSnapshotResource } from '../buyers/buyers.schemas.ts';
import { maskContactDetails } from '../buyers/pii-mask.ts';
import { EXTRA_FIELDS, type Transaction, type TransactionSummary } from './transaction.schema.ts';

type ShippingJson = NonNullable<Transaction['shipping_details']>;
/** Shipping details as copied onto the row (JSON): the resource's fields, any of which an older row may lack. */
type StoredShipping = Partial<Omit<ShippingJson, 'address'>> & { address?: Parameters<typeof toAddressResource>[0] };

type PaymentMethodJson = NonNullable<Transaction['payment_method']>;
/** The payment method as copied onto the row (JSON) when the transaction was made. */
type StoredPaymentMethod = Partial<Omit<PaymentMethodJson, 'method' | 'details'>> &
  Pick<PaymentMethodJson, 'method'> & {
    bin?: string;
    card_type?: NonNullable<PaymentMethodJson['details']>['card_type'];
  };

const iso = (value: Date | null) => (value ? value.toISOString() : null);

const buyerOf = (row: TransactionRow, revealPii: boolean): Transaction['buyer'] =>
  toBuyerSnapshotResource(row.buyer, revealPii);

const shippingOf = (row: TransactionRow, revealPii: boolean): Transaction['shipping_details'] =>
  toShippingSnapshotResource(row.shipping_details, revealPii);

/** Shipping details copied onto a transaction or a payment link, masked without the scope to read personal data. */
export function toShippingSnapshotResource(snapshot: unknown, revealPii: boolean): Transaction['shipping_details'] {
  const s = snapshot as StoredShipping | null;
  if (!s) return null;
  const resource = {
    type: 'shipping-details' as const,
    id: s.id ?? null,
    buyer_id: s.buyer_id ?? null,
    first_name: s.first_name ?? null,
    last_name: s.last_name ?? null,
    email_address: s.email_address ?? null,
    phone_number: s.phone_number ?? null,
    address: toAddressResource(s.address),
  };
  return revealPii ? resource : maskContactDetails(resource);
}

function paymentMethodOf(row: TransactionRow): Transaction['payment_method'] {
  const pm = row.payment_method as StoredPaymentMethod | null;
  if (!pm) return null;
  return {
    type: 'payment-method',
    id: pm.id ?? null,
    method: pm.method,
    mode: pm.mode ?? null,
    scheme: pm.scheme ?? null,
    label: pm.label ?? null,
    expiration_date: pm.expiration_date ?? null,
    fingerprint: pm.fingerprint ?? null,
    country: pm.country ?? null,
    currency: pm.currency ?? null,
    details: pm.bin ? { bin: pm.bin, card_type: pm.card_type ?? null, card_issuer_name: null } : null,
    approval_url: row.approval_url,
    approval_target: row.approval_url ? 'any' : null,
    external_identifier: pm.external_identifier ?? null,
    last_replaced_at: pm.last_replaced_at ?? null,
    payment_account_reference: null,
  };
}

/** The list item: the first 32 fields of the resource. */
export function toTransactionSummary(row: TransactionRow, revealPii: boolean): TransactionSummary {
  return {
    type: 'transaction',
    id: row.id,
    reconciliation_id: uuidToBase62(row.id),
    merchant_account_id: row.merchant_account_id,
    currency: row.currency,
    amount: row.amount,
    status: row.status,
    authorized_amount: row.authorized_amount,
    captured_amount: row.captured_amount,
    refunded_amount: row.refunded_amount,
    settled_currency: row.settled_currency,
    settled_amount: row.settled_amount,
    settled: row.settled,
    country: row.country,
    external_identifier: row.external_identifier,
    intent: row.intent,
    payment_method: paymentMethodOf(row),
    method: row.method,
    instrument_type: row.instrument_type as TransactionSummary['instrument_type'],
    error_code: row.error_code,
    payment_service: (row.payment_service as TransactionSummary['payment_service']) ?? null,
    pending_review: row.pending_review,
    buyer: buyerOf(row, revealPii),
    raw_response_code: row.raw_response_code,
    raw_response_description: row.raw_response_description,
    shipping_details: shippingOf(row, revealPii),
    checkout_session_id: row.checkout_session_id,
    gift_card_redemptions: [],
    gift_card_service: null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    disputed: row.disputed,
  };
}

/** The only way a transaction row becomes a response; `revealPii` false masks buyer, shipping and recipient data. */
export function toTransactionResource(row: TransactionRow, revealPii: boolean): Transaction {
  const extra = row.extra as Record<string, unknown>;
  const recipient = row.recipient as Transaction['recipient'];
  // Added to the summary object rather than spread into a new one: rendered for every response and
  // webhook snapshot, and a spread of 30 fields into a fresh literal was its largest cost.
  const resource = Object.assign(toTransactionSummary(row, revealPii), {
    airline: (row.airline as Transaction['airline']) ?? null,
    auth_response_code: row.auth_response_code,
    avs_response_code: row.avs_response_code as Transaction['avs_response_code'],
    cvv_response_code: row.cvv_response_code as Transaction['cvv_response_code'],
    anti_fraud_decision: row.anti_fraud_decision as Transaction['anti_fraud_decision'],
    payment_source: row.payment_source as Transaction['payment_source'],
    merchant_initiated: row.merchant_initiated,
    is_subsequent_payment: row.is_subsequent_payment,
    cart_items: (row.cart_items as Transaction['cart_items']) ?? null,
    statement_descriptor: (row.statement_descriptor as Transaction['statement_descriptor']) ?? null,
    scheme_transaction_id: row.scheme_transaction_id,
    three_d_secure: (row.three_d_secure as Transaction['three_d_secure']) ?? null,
    payment_service_transaction_id: row.payment_service_transaction_id,
    additional_identifiers: row.additional_identifiers ?? {},
    metadata: row.metadata,
    authorized_at: iso(row.authorized_at),
    captured_at: iso(row.captured_at),
    voided_at: iso(row.voided_at),
    canceled_at: iso(row.canceled_at),
    approval_expires_at: iso(row.approval_expires_at),
    buyer_approval_timedout_at: iso(row.buyer_approval_timedout_at),
    // Null: awaiting the connector's answer (decision 0154), which the API calls pending.
    intent_outcome: row.intent_outcome ?? 'pending',
    multi_tender: row.multi_tender,
    account_funding_transaction: row.account_funding_transaction,
    recipient:
      recipient && !revealPii
        ? {
            ...recipient,
            ...maskContactDetails({ first_name: recipient.first_name, last_name: recipient.last_name }),
            address: recipient.address ? {} : null,
            account_number: recipient.account_number ? '****' : null,
            date_of_birth: null,
          }
        : recipient,
    merchant_advice_code: row.merchant_advice_code,
    session_token: null,
    iso_response_code: row.raw_response_code && /^\d{2}$/.test(row.raw_response_code) ? row.raw_response_code : null,
  }) as Record<string, unknown>;
  for (const key of EXTRA_FIELDS) resource[key] = extra[key] ?? null;
  return resource as Transaction;
}
