/** The public API's resources as the console reads them (the fields it shows; docs in ../shared/api/models.md). */

export interface PaymentMethodSummary {
  method: string;
  scheme: string | null;
  label: string | null;
  expiration_date: string | null;
  details: { bin: string | null; card_type: string | null; card_issuer_name: string | null } | null;
}

export interface TransactionSummary {
  id: string;
  reconciliation_id: string;
  currency: string;
  amount: number;
  status: string;
  authorized_amount: number;
  captured_amount: number;
  refunded_amount: number;
  country: string | null;
  external_identifier: string | null;
  intent: string;
  method: string | null;
  payment_method: PaymentMethodSummary | null;
  payment_service: { id: string; display_name: string; payment_service_definition_id: string } | null;
  buyer: {
    id: string | null;
    display_name: string | null;
    external_identifier: string | null;
    billing_details: { email_address?: string | null; first_name?: string | null; last_name?: string | null } | null;
  } | null;
  error_code: string | null;
  raw_response_code: string | null;
  raw_response_description: string | null;
  created_at: string;
  updated_at: string;
  disputed: boolean;
  /** Held for a manual anti-fraud review: not capturable until approved (docs/risk.md, "Manual review"). */
  pending_review: boolean;
  anti_fraud_decision: string | null;
}

export const TRANSACTION_STATUSES = [
  'processing',
  'buyer_approval_pending',
  'authorization_succeeded',
  'authorization_declined',
  'authorization_failed',
  'authorization_voided',
  'authorization_void_pending',
  'capture_succeeded',
  'capture_pending',
] as const;

export interface PaymentService {
  id: string;
  display_name: string;
  payment_service_definition_id: string;
  method: string;
  active: boolean;
  accepted_currencies: string[];
  accepted_countries: string[];
  created_at: string;
}
