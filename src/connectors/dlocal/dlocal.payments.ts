import {
  ConnectorError,
  type AuthorizeOutcome,
  type AuthorizeRequest,
  type ResponseFacts,
  type SyncOutcome,
  type SyncRequest,
} from '../connector.ts';
import { toDlocalAmount } from './dlocal.amounts.ts';
import { bodyOf, type DlocalClient } from './dlocal.client.ts';
import { DLOCAL_PIX_METHOD_ID } from './dlocal.definition.ts';
import { declineOf, paymentStateOf, UNPAID_CODE } from './dlocal.mapping.ts';

/**
 * A PIX payment through dLocal (docs.dlocal.com/docs/pix-payments, "Direct PIX payment"):
 * `POST /payments` with payment method `PQ` and flow `DIRECT`; dLocal answers it `PENDING` with the
 * PIX code (`ticket`), which the buyer pays from any bank app. The buyer's transfer is final (a
 * sale): `PAID` is our `captured`. dLocal reports it to `notification_url` (dlocal.webhooks.ts), and
 * `sync` reads it (`GET /payments/{id}`). The attempt id is the payment's `order_id`: a create whose
 * answer was lost is found by it (`GET /orders/{order_id}`).
 */

const blank: ResponseFacts = { errorCode: null, rawResponseCode: null, rawResponseDescription: null };

/** The fields of dLocal's payment object we read (docs.dlocal.com/reference/the-payment-object). */
export interface DlocalPayment {
  id?: string;
  status?: string;
  status_code?: string | number;
  status_detail?: string;
  order_id?: string;
  amount?: number;
  currency?: string;
  redirect_url?: string;
  /**
   * The PIX code of a DIRECT payment: `qr_code` the EMV "copia e cola" text the buyer pastes into
   * a bank app (or renders as a QR code), `image_url` dLocal's image of the QR code, and until when
   * it can be paid.
   */
  ticket?: { qr_code?: string; image_url?: string; expiration_date?: string };
}

/** The Order object (docs.dlocal.com/reference/the-order-object): the payment made for an order_id. */
interface DlocalOrder {
  payment_id?: string;
  status?: string;
  status_code?: string | number;
  status_detail?: string;
}

const paymentPath = (id: string) => `/payments/${encodeURIComponent(id)}`;

function outcome(status: AuthorizeOutcome['status'], id: string | null, extra: Partial<AuthorizeOutcome> = {}) {
  return {
    ...blank,
    status,
    providerTransactionId: id,
    authResponseCode: null,
    avsResponseCode: null,
    cvvResponseCode: null,
    schemeTransactionId: null,
    merchantAdviceCode: null,
    approvalUrl: null,
    additionalIdentifiers: id ? { payment_id: id } : {},
    ...extra,
  } satisfies AuthorizeOutcome;
}

const statusFacts = (p: { status?: string; status_code?: string | number; status_detail?: string }) => ({
  rawResponseCode: p.status_code === undefined ? (p.status ?? null) : String(p.status_code),
  rawResponseDescription: p.status_detail ?? null,
});

/**
 * What the public transaction shows of a waiting PIX payment: `approval_url` is dLocal's image of
 * the QR code, and `additional_identifiers` carry the copy-paste code and its expiry
 * (docs/connectors-dlocal.md, "Showing the PIX code").
 */
export function pixIdentifiers(payment: DlocalPayment): Record<string, string | null> {
  return {
    payment_id: payment.id ?? null,
    pix_qr_code: payment.ticket?.qr_code ?? null,
    pix_qr_code_image_url: payment.ticket?.image_url ?? null,
    pix_expires_at: payment.ticket?.expiration_date ?? null,
  };
}

/** The CPF (11 digits) or CNPJ (14) of the buyer, digits only; null when the buyer has none. */
export function documentOf(request: AuthorizeRequest): string | null {
  const taxId = request.buyer?.taxId;
  if (!taxId || (taxId.kind !== 'br.cpf' && taxId.kind !== 'br.cnpj')) return null;
  const digits = [...taxId.value].filter((c) => c >= '0' && c <= '9').join('');
  return digits.length === (taxId.kind === 'br.cpf' ? 11 : 14) ? digits : null;
}

function refuse(message: string): never {
  throw new ConnectorError('invalid_request', message);
}

/** The body of `POST /payments` (docs.dlocal.com/reference/create-a-payment). */
export function paymentBody(request: AuthorizeRequest): Record<string, unknown> {
  if (request.instrument.kind !== 'redirect' || request.instrument.method !== 'pix')
    refuse('The dLocal PIX connector takes the pix method only');
  if (request.currency !== 'BRL' || (request.country ?? 'BR') !== 'BR')
    refuse('PIX takes BRL payments in Brazil (BR) only');
  const options = request.options ?? {};
  if (options.subscription != null || options.scheduled_date != null)
    refuse('dLocal PIX subscriptions and scheduled payments (DlocalPIXOptions) are not supported by this connector');
  const document = documentOf(request);
  if (!document)
    refuse(
      "PIX through dLocal needs the buyer's CPF or CNPJ: buyer.billing_details.tax_id with kind br.cpf (11 digits) or br.cnpj (14 digits)",
    );
  const name = request.buyer?.name?.trim();
  const email = request.buyer?.emailAddress?.trim();
  if (!name || !email) refuse("PIX through dLocal needs the buyer's name and email address (buyer.billing_details)");
  return {
    amount: toDlocalAmount(request.amount, request.currency),
    currency: request.currency,
    country: 'BR',
    payment_method_id: DLOCAL_PIX_METHOD_ID,
    payment_method_flow: 'DIRECT',
    payer: { name, email, document },
    order_id: request.idempotencyKey,
    description: request.reference,
    ...(request.notificationUrl ? { notification_url: request.notificationUrl } : {}),
  };
}

/** A payment's status as our authorization outcome. */
function paymentOutcome(payment: DlocalPayment): AuthorizeOutcome {
  const id = payment.id ?? null;
  const state = paymentStateOf(payment.status);
  const identifiers = { additionalIdentifiers: pixIdentifiers(payment) };
  switch (state) {
    case 'waiting':
      return outcome('buyer_approval_pending', id, {
        ...identifiers,
        approvalUrl: payment.ticket?.image_url ?? payment.redirect_url ?? null,
      });
    case 'paid':
      return outcome('captured', id, identifiers);
    default:
      return outcome('declined', id, { ...identifiers, errorCode: UNPAID_CODE[state], ...statusFacts(payment) });
  }
}

/**
 * `POST /payments`: the PIX code for the buyer, or dLocal's refusal. A payment this connector cannot
 * send (no CPF/CNPJ, another currency, options it does not build) fails before any call, with the
 * reason in `raw_response_description` for the merchant.
 */
export async function createPayment(client: DlocalClient, request: AuthorizeRequest): Promise<AuthorizeOutcome> {
  let body: Record<string, unknown>;
  try {
    body = paymentBody(request);
  } catch (error) {
    if (!(error instanceof ConnectorError) || error.kind !== 'invalid_request') throw error;
    return outcome('failed', null, {
      errorCode: 'service_error',
      rawResponseCode: 'request_not_sent',
      rawResponseDescription: error.message,
    });
  }
  const response = await client.call(request.credentials, 'POST', '/payments', body);
  const decline = declineOf(response.status, response.json);
  if (decline) return outcome('declined', null, decline);
  return paymentOutcome(bodyOf<DlocalPayment>(response));
}

/** A payment's state as a status answer. */
function syncOf(payment: DlocalPayment): SyncOutcome {
  const answer = paymentOutcome(payment);
  return {
    status: answer.status,
    providerTransactionId: answer.providerTransactionId,
    errorCode: answer.errorCode,
    rawResponseCode: answer.rawResponseCode,
    rawResponseDescription: answer.rawResponseDescription,
  };
}

/** `GET /payments/{id}`: the payment's current state. */
export async function readPayment(client: DlocalClient, credentials: Record<string, string>, id: string) {
  const response = await client.call(credentials, 'GET', paymentPath(id));
  if (response.status === 404) return null;
  return bodyOf<DlocalPayment>(response);
}

/**
 * The payment made for this attempt id when the create got no answer (`GET /orders/{order_id}`).
 * Its buyer never got the PIX code (it was in the lost answer), so a payment still pending cannot
 * be paid: it is cancelled at dLocal (`POST /payments/{id}/cancel`) and the attempt failed.
 */
async function paymentOfLostAnswer(client: DlocalClient, request: SyncRequest): Promise<SyncOutcome> {
  const found = await client.call(request.credentials, 'GET', `/orders/${encodeURIComponent(request.idempotencyKey)}`);
  if (found.status === 404) return { ...blank, status: 'not_found', providerTransactionId: null };
  const order = bodyOf<DlocalOrder>(found);
  if (!order.payment_id) return { ...blank, status: 'not_found', providerTransactionId: null };
  if (paymentStateOf(order.status) !== 'waiting') return syncOf({ ...order, id: order.payment_id });
  const cancelled = await client.call(request.credentials, 'POST', `${paymentPath(order.payment_id)}/cancel`, {});
  // Paid in the meantime (or the cancel refused): dLocal's state decides.
  const payment = cancelled.status >= 200 && cancelled.status < 300 ? bodyOf<DlocalPayment>(cancelled) : null;
  const now = payment?.status ? payment : await readPayment(client, request.credentials, order.payment_id);
  if (now && paymentStateOf(now.status) === 'paid') return syncOf(now);
  return {
    errorCode: 'service_network_error',
    rawResponseCode: now?.status ?? 'CANCELLED',
    rawResponseDescription: "dLocal's answer with the PIX code was lost: the payment was cancelled at dLocal",
    status: 'failed',
    providerTransactionId: order.payment_id,
  };
}

/** Sync of a PIX payment: by its id, or, when the create got no answer, by its order_id. */
export async function syncPayment(client: DlocalClient, request: SyncRequest): Promise<SyncOutcome> {
  if (!request.providerTransactionId) return paymentOfLostAnswer(client, request);
  const payment = await readPayment(client, request.credentials, request.providerTransactionId);
  return payment ? syncOf(payment) : { ...blank, status: 'not_found', providerTransactionId: null };
}
