import type { BadgeLook } from '../../lib/badge-icon.ts';

/**
 * Every payment method this server recognizes: the values of the method enumeration a transaction,
 * a stored payment method or a payment service of this server can carry (the payment method forms
 * of `POST /transactions`, and `gift-card`). No source lists the public API's definitions, so the
 * names and the `method` kind are ours (decision 0032).
 */
export interface PaymentMethodEntry {
  displayName: string;
  longDisplayName: string;
  /** What kind of payment it is (free text in the API): `card_payment`, `digital_wallet`, ... */
  kind: 'card_payment' | 'digital_wallet' | 'gift_card' | 'bank_redirect' | 'direct_debit' | 'redirect';
  /** The generated icon: its short label and colour. */
  icon: Omit<BadgeLook, 'displayName'>;
}

export const PAYMENT_METHOD_CATALOGUE = {
  ach: {
    displayName: 'ACH',
    longDisplayName: 'ACH bank debit',
    kind: 'direct_debit',
    icon: { label: 'ACH', color: '#0f4c81' },
  },
  applepay: {
    displayName: 'Apple Pay',
    longDisplayName: 'Apple Pay wallet',
    kind: 'digital_wallet',
    icon: { label: 'PAY', color: '#000000' },
  },
  bacs: {
    displayName: 'Bacs',
    longDisplayName: 'Bacs Direct Debit',
    kind: 'direct_debit',
    icon: { label: 'BACS', color: '#1d4e89' },
  },
  becs: {
    displayName: 'BECS',
    longDisplayName: 'BECS Direct Debit',
    kind: 'direct_debit',
    icon: { label: 'BECS', color: '#2a6f97' },
  },
  card: {
    displayName: 'Card',
    longDisplayName: 'Credit or debit card',
    kind: 'card_payment',
    icon: { label: 'CARD', color: '#6b7280' },
  },
  'click-to-pay': {
    displayName: 'Click to Pay',
    longDisplayName: 'Click to Pay card',
    kind: 'digital_wallet',
    icon: { label: 'C2P', color: '#2b5797' },
  },
  custom_redirect: {
    displayName: 'Redirect',
    longDisplayName: "Payment on the payment service's own page",
    kind: 'redirect',
    icon: { label: 'WEB', color: '#4b5563' },
  },
  'gift-card': {
    displayName: 'Gift card',
    longDisplayName: 'Gift card',
    kind: 'gift_card',
    icon: { label: 'GIFT', color: '#b45309' },
  },
  googlepay: {
    displayName: 'Google Pay',
    longDisplayName: 'Google Pay wallet',
    kind: 'digital_wallet',
    icon: { label: 'GPAY', color: '#3c4043' },
  },
  googlepay_pan_only: {
    displayName: 'Google Pay',
    longDisplayName: 'Google Pay card without a device token',
    kind: 'digital_wallet',
    icon: { label: 'GPAY', color: '#5f6368' },
  },
  netbanking: {
    displayName: 'Net banking',
    longDisplayName: 'Online banking transfer',
    kind: 'bank_redirect',
    icon: { label: 'NET', color: '#166534' },
  },
  gocardless: {
    displayName: 'GoCardless',
    longDisplayName: 'Direct Debit with GoCardless (mandate set up on GoCardless)',
    kind: 'direct_debit',
    icon: { label: 'GC', color: '#1c1b18' },
  },
  'network-token': {
    displayName: 'Network token',
    longDisplayName: 'Card network token',
    kind: 'card_payment',
    icon: { label: 'TOKEN', color: '#374151' },
  },
  paybybank: {
    displayName: 'Pay by bank',
    longDisplayName: 'Pay by bank (open banking)',
    kind: 'bank_redirect',
    icon: { label: 'BANK', color: '#0e7490' },
  },
  ideal: {
    displayName: 'iDEAL',
    longDisplayName: 'iDEAL (Dutch bank transfer, approved at the bank)',
    kind: 'bank_redirect',
    icon: { label: 'iD', color: '#cc0066' },
  },
  klarna: {
    displayName: 'Klarna',
    longDisplayName: 'Klarna (pay later, over time or now, approved on Klarna)',
    kind: 'redirect',
    icon: { label: 'K.', color: '#ffb3c7' },
  },
  paypal: {
    displayName: 'PayPal',
    longDisplayName: 'PayPal account (approved on PayPal)',
    kind: 'digital_wallet',
    icon: { label: 'PP', color: '#003087' },
  },
  paze: {
    displayName: 'Paze',
    longDisplayName: 'Paze wallet',
    kind: 'digital_wallet',
    icon: { label: 'PAZE', color: '#1e40af' },
  },
  pix: {
    displayName: 'PIX',
    longDisplayName: 'PIX instant payment (Brazil, paid with a QR or copy-paste code)',
    kind: 'bank_redirect',
    icon: { label: 'PIX', color: '#32bcad' },
  },
  sepa: {
    displayName: 'SEPA',
    longDisplayName: 'SEPA Direct Debit',
    kind: 'direct_debit',
    icon: { label: 'SEPA', color: '#003399' },
  },
} as const satisfies Record<string, PaymentMethodEntry>;

export type PaymentMethodDefinitionId = keyof typeof PAYMENT_METHOD_CATALOGUE;

/** The ids in alphabetical order: the order of the list. */
export const PAYMENT_METHOD_DEFINITION_IDS = (
  Object.keys(PAYMENT_METHOD_CATALOGUE) as PaymentMethodDefinitionId[]
).sort();

export const isPaymentMethodDefinitionId = (id: string): id is PaymentMethodDefinitionId =>
  Object.hasOwn(PAYMENT_METHOD_CATALOGUE, id);
