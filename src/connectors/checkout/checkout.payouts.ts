import {
  ConnectorError,
  type PayoutOutcome,
  type PayoutRequest,
  type PayoutSyncOutcome,
  type PayoutSyncRequest,
  type ResponseFacts,
} from '../connector.ts';
import { toCheckoutAmount } from './checkout.amounts.ts';
import { ATTEMPT_KEY, REFERENCE_KEY, bodyOf, type CheckoutPayment } from './checkout.answers.ts';
import type { CheckoutClient } from './checkout.client.ts';
import { cardErrorOf, declineCodeOf, payoutStatusOf } from './checkout.mapping.ts';
import { actionsOf, expiryOf, findByAttempt, paymentById } from './checkout.payments.ts';

/**
 * Card payouts (www.checkout.com/docs/payouts/card-payouts/request-a-card-payout): `POST /payments`
 * with the card as `destination` and the merchant's currency account as `source`
 * (`{type: currency_account, id: ca_…}`), through a processing channel. The payout's
 * `connection_options["checkout-card"]` (`CheckoutPayoutOptions`: `source_id`,
 * `processing_channel_id`) names them; without them the service's `payout_source_id` and
 * `processing_channel_id` apply. Checkout.com answers 202 Pending and sends the funds afterwards
 * (Visa Direct, Mastercard Moneysend): the payout stays `pending` until `syncPayout` reads it `Paid`
 * or `Declined` (the reconcile-payouts job), found again by its reference (the attempt id) when its
 * answer was lost. A card not eligible for payouts is a 422 (`card_not_eligible`): a decline.
 */

const blank: ResponseFacts = { errorCode: null, rawResponseCode: null, rawResponseDescription: null };

/** Funds Transfer Type: `OG` for online gambling winnings, else `FD` (funds disbursement by the merchant). */
const FUNDS_TRANSFER_TYPES = { online_gambling: 'OG', none: 'FD' } as const;

function optionsOf(request: PayoutRequest): { sourceId: string; channel: string } {
  const options = (request.options ?? {}) as { source_id?: unknown; processing_channel_id?: unknown };
  const sourceId = typeof options.source_id === 'string' ? options.source_id : request.credentials.payout_source_id;
  const channel =
    typeof options.processing_channel_id === 'string'
      ? options.processing_channel_id
      : request.credentials.processing_channel_id;
  if (!sourceId?.trim())
    throw new ConnectorError(
      'invalid_request',
      'A Checkout.com card payout needs the currency account to pay from: connection_options["checkout-card"].source_id or the service\'s payout_source_id',
    );
  if (!channel?.trim())
    throw new ConnectorError('invalid_request', 'A Checkout.com card payout needs a processing channel');
  return { sourceId: sourceId.trim(), channel: channel.trim() };
}

export function payoutBody(request: PayoutRequest): Record<string, unknown> {
  const { sourceId, channel } = optionsOf(request);
  const { instrument, merchant } = request;
  if (instrument.kind === 'provider-account')
    throw new ConnectorError('invalid_request', 'Checkout.com card payouts send to cards only');
  const destination =
    instrument.kind === 'card'
      ? {
          type: 'card',
          number: instrument.number,
          ...expiryOf(instrument.expirationDate),
          ...(request.recipient
            ? {
                account_holder: {
                  type: 'individual',
                  ...(request.recipient.firstName ? { first_name: request.recipient.firstName } : {}),
                  ...(request.recipient.lastName ? { last_name: request.recipient.lastName } : {}),
                },
              }
            : {}),
        }
      : { type: 'id', id: instrument.token };
  return {
    source: { type: 'currency_account', id: sourceId },
    destination,
    amount: toCheckoutAmount(request.amount, request.currency),
    currency: request.currency,
    reference: request.idempotencyKey,
    processing_channel_id: channel,
    billing_descriptor: { reference: (merchant?.statementDescriptor || request.reference).slice(0, 15) },
    instruction: { funds_transfer_type: FUNDS_TRANSFER_TYPES[request.category ?? 'none'] },
    ...(merchant
      ? {
          sender: {
            type: 'corporate',
            company_name: merchant.name,
            ...(merchant.address?.country
              ? {
                  address: {
                    address_line1: merchant.address.line1 ?? undefined,
                    city: merchant.address.city ?? undefined,
                    zip: merchant.address.postalCode ?? undefined,
                    country: merchant.address.country,
                  },
                }
              : {}),
          },
        }
      : {}),
    metadata: { [ATTEMPT_KEY]: request.idempotencyKey, [REFERENCE_KEY]: request.reference },
  };
}

/** A payout as Checkout.com answers or reads it: its status, with a decline's code. */
function payoutOf(payout: CheckoutPayment): Pick<PayoutOutcome, 'status' | 'providerPayoutId'> & ResponseFacts {
  const status = payout.approved === false ? 'declined' : payoutStatusOf(payout.status);
  const facts =
    status === 'declined' || status === 'failed'
      ? {
          errorCode: status === 'declined' ? declineCodeOf(payout.response_code) : 'service_error',
          rawResponseCode: payout.response_code ?? payout.status ?? null,
          rawResponseDescription: payout.response_summary ?? payout.status ?? null,
        }
      : blank;
  return { ...facts, status, providerPayoutId: payout.id ?? null };
}

export async function payoutToCard(client: CheckoutClient, request: PayoutRequest): Promise<PayoutOutcome> {
  const response = await client.call(
    request.credentials,
    'POST',
    '/payments',
    payoutBody(request),
    request.idempotencyKey,
  );
  const cardError = cardErrorOf(response.status, response.json);
  if (cardError)
    return {
      errorCode: cardError.errorCode,
      rawResponseCode: cardError.rawCode,
      rawResponseDescription: 'Refused by Checkout.com (422)',
      status: 'declined',
      providerPayoutId: null,
    };
  return payoutOf(bodyOf<CheckoutPayment>(response));
}

export async function syncPayoutOf(client: CheckoutClient, request: PayoutSyncRequest): Promise<PayoutSyncOutcome> {
  const found = request.providerPayoutId
    ? await paymentById(client, request.credentials, request.providerPayoutId)
    : await findByAttempt(client, request.credentials, request.idempotencyKey);
  if (!found) return { ...blank, status: 'not_found', providerPayoutId: null };
  let payout = found;
  if (found.status === 'Declined' && !found.response_code && found.id) {
    const action = (await actionsOf(client, request.credentials, found.id)).find((a) => a.approved === false);
    payout = { ...found, response_code: action?.response_code, response_summary: action?.response_summary };
  }
  return payoutOf(payout);
}
