import { toMinor } from '../ui/format.ts';

/** A payout as the console reads it (GET /payouts, GET /payouts/{id}). */
export interface Payout {
  id: string;
  amount: number;
  currency: string;
  status: string;
  category: string | null;
  external_identifier: string | null;
  payment_service_payout_id: string | null;
  created_at: string;
  updated_at: string;
  payment_method: { method: string; scheme: string | null; label: string | null; expiration_date: string | null };
  payment_service: { id: string | null; display_name: string | null; payment_service_definition_id: string };
  buyer: { id: string | null; display_name: string | null; external_identifier: string | null } | null;
  merchant: { name: string; identification_number: string; statement_descriptor: string | null } | null;
}

/** The payout form's fields as typed (console/src/pages/payouts.tsx). */
export interface PayoutDraft {
  amount: string;
  currency: string;
  payment_service_id: string;
  /** `card`: a card number and expiry (never stored); `id`: a stored card of the account. */
  destination: 'card' | 'id';
  number: string;
  expiration_date: string;
  stored_card_id: string;
  external_identifier: string;
  category: string;
}

/** The `POST /payouts` body of a draft, or what the user must correct first. */
export function payoutBody(draft: PayoutDraft): { body: Record<string, unknown> } | { error: string } {
  const currency = draft.currency.trim().toUpperCase();
  if (!/^[A-Z]{3}$/.test(currency)) return { error: 'Enter a currency code such as EUR' };
  const amount = toMinor(draft.amount, currency);
  if (amount === null) return { error: 'Enter an amount such as 12.50' };
  if (!draft.payment_service_id) return { error: 'Choose the payment service that makes the payout' };
  const number = draft.number.replace(/[\s-]/g, '');
  if (draft.destination === 'card' && !/^\d{12,19}$/.test(number)) return { error: 'Enter the card number' };
  if (draft.destination === 'card' && !/^\d{2}\/\d{2}$/.test(draft.expiration_date.trim()))
    return { error: 'Enter the expiry as MM/YY' };
  if (draft.destination === 'id' && !draft.stored_card_id.trim()) return { error: 'Enter the stored card id' };
  return {
    body: {
      amount,
      currency,
      payment_service_id: draft.payment_service_id,
      payment_method:
        draft.destination === 'card'
          ? { method: 'card', number, expiration_date: draft.expiration_date.trim() }
          : { method: 'id', id: draft.stored_card_id.trim() },
      ...(draft.external_identifier.trim() ? { external_identifier: draft.external_identifier.trim() } : {}),
      ...(draft.category ? { category: draft.category } : {}),
    },
  };
}
