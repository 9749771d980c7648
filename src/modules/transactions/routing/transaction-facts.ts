import type { TransactionActionJson } from '../../../db/schema-transactions.ts';
import { detectSchemes } from '../../../lib/card-schemes.ts';
import type { FlowFacts } from '../../flows/rule-conditions.ts';
import { CARD_LIKE_METHODS, type CreateTransactionBody } from '../create-transaction.schema.ts';
import type { ResolvedInstrument } from '../create/instrument.ts';

type TransactionFlow = Exclude<TransactionActionJson['flow'], 'checkout'>;

/** The flow of a transaction: card-like instruments, redirect methods, anything else. */
export function flowOf(instrument: ResolvedInstrument): TransactionFlow {
  if (instrument.instrument.kind === 'redirect') return 'redirect-transaction';
  return CARD_LIKE_METHODS.has(instrument.method) ? 'card-transaction' : 'non-card-transaction';
}

/** What the rules of a transaction flow look at: the request, the resolved instrument, the anti-fraud decision. */
export function transactionFacts(
  body: CreateTransactionBody,
  instrument: ResolvedInstrument,
  antiFraudDecision: string | null,
  buyerExternalIdentifier: string | null,
): FlowFacts {
  const scheme = (instrument.snapshot.scheme as string | null | undefined) ?? null;
  return {
    amount: body.amount,
    currency: body.currency,
    country: body.country ?? null,
    // Card payment services process network tokens and wallet tokens.
    method: CARD_LIKE_METHODS.has(instrument.method) ? 'card' : instrument.method,
    scheme,
    bin: instrument.bin,
    issuerCountry: instrument.bin ? detectSchemes(instrument.bin).country : null,
    paymentSource: body.payment_source ?? 'ecommerce',
    merchantInitiated: body.merchant_initiated ?? false,
    isSubsequentPayment: body.is_subsequent_payment ?? false,
    metadata: (body.metadata as Record<string, string> | null | undefined) ?? null,
    buyerExternalIdentifier,
    antiFraudDecision,
    // Authentication done before the request; the sandbox 3DS server runs after routing.
    threeDSecureStatus: body.three_d_secure_data ? 'complete' : null,
  };
}
