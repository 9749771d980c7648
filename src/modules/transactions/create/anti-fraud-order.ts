import type { AntiFraudOrder } from '../../../connectors/anti-fraud/anti-fraud-connector.ts';
import type { CreateTransactionBody } from '../create-transaction.schema.ts';
import type { ResolvedInstrument } from './resolved-instrument.ts';

/** What a service is told of the instrument: a resolved one, or a checkout session's card read without its number. */
export type AntiFraudInstrument = Pick<ResolvedInstrument, 'method' | 'cardNumber' | 'bin' | 'last4' | 'snapshot'>;

/** The parts of the transaction's buyer snapshot a service is given. */
interface BuyerFacts {
  external_identifier?: string | null;
  billing_details?: { email_address?: string | null; first_name?: string | null; last_name?: string | null } | null;
}

const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/**
 * The new transaction as its anti-fraud service sees it (decision 0139). The card number is in it
 * for the sandbox service's test cards; `decideAntiFraud` removes it before any real service.
 */
export function antiFraudOrderOf(
  transactionId: string,
  body: CreateTransactionBody,
  instrument: AntiFraudInstrument | null,
  snapshot: object | null,
  ipAddress: string | null,
): AntiFraudOrder {
  const buyer = snapshot as BuyerFacts | null;
  const billing = buyer?.billing_details ?? null;
  const card = instrument && (instrument.cardNumber || instrument.bin || instrument.last4);
  return {
    transactionId,
    amount: body.amount,
    currency: body.currency,
    country: body.country ?? null,
    createdAt: new Date(),
    method: instrument?.method ?? 'gift-card',
    card: card
      ? {
          number: instrument.cardNumber,
          bin: instrument.bin,
          last4: instrument.last4,
          scheme: str(instrument.snapshot.scheme),
          expirationDate: str(instrument.snapshot.expiration_date),
        }
      : null,
    buyer: buyer
      ? {
          externalIdentifier: buyer.external_identifier ?? null,
          emailAddress: billing?.email_address ?? null,
          firstName: billing?.first_name ?? null,
          lastName: billing?.last_name ?? null,
        }
      : null,
    ipAddress,
    fingerprint: body.anti_fraud_fingerprint ?? null,
    // The entry of the service's own definition id is picked by `decideAntiFraud`, which knows it.
    options: null,
  };
}
