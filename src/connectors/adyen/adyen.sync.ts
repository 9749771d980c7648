import { isCurrency } from '../../lib/currencies.ts';
import type { CallBase, ResponseFacts, SyncOutcome, SyncRequest, VerifyOutcome } from '../connector.ts';
import { authorizationOf, bodyOf, type AdyenPaymentResponse } from './adyen.answers.ts';
import type { AdyenClient } from './adyen.client.ts';
import { httpError } from './adyen.mapping.ts';

const blank: ResponseFacts = { errorCode: null, rawResponseCode: null, rawResponseDescription: null };

export interface ModificationAnswer {
  /** `pending`: Adyen received it (`status: received`); its webhook reports the result. */
  status: 'pending' | 'declined';
  facts: ResponseFacts;
  pspReference: string | null;
}

/**
 * A capture, cancel or refund. Adyen answers `received` at once and decides later (webhook); a 422
 * is Adyen refusing this modification (e.g. more than the remaining amount): a decline with its raw code.
 */
export async function modificationOutcome(
  client: AdyenClient,
  request: CallBase,
  path: string,
  body: Record<string, unknown>,
  declineCode: 'capture_declined' | 'void_declined' | 'refund_declined',
): Promise<ModificationAnswer> {
  const response = await client.post(request.credentials, path, body, request.idempotencyKey);
  if (response.status === 422) {
    const error = (response.json ?? {}) as { errorCode?: string; message?: string };
    return {
      status: 'declined',
      facts: {
        errorCode: declineCode,
        rawResponseCode: error.errorCode ?? '422',
        rawResponseDescription: error.message ?? 'Refused by Adyen',
      },
      pspReference: null,
    };
  }
  const answer = bodyOf<{ status?: string; pspReference?: string }>(response);
  return { status: 'pending', facts: blank, pspReference: answer.pspReference ?? null };
}

function syncOf(answer: AdyenPaymentResponse, request: SyncRequest): SyncOutcome {
  const outcome = authorizationOf(answer, request.intent);
  const providerTransactionId = outcome.providerTransactionId ?? request.providerTransactionId;
  return {
    errorCode: outcome.errorCode,
    rawResponseCode: outcome.rawResponseCode,
    rawResponseDescription: outcome.rawResponseDescription,
    status: outcome.status,
    providerTransactionId,
    schemeTransactionId: outcome.schemeTransactionId,
  };
}

/**
 * An authorization's status: with the buyer's 3DS return (`redirectResult`), `/payments/details`
 * completes it; otherwise `/payments` is probed with the attempt's own idempotency key and no card.
 * Adyen replays its first answer when it saw the original; when it did not, the probe is refused
 * (422, no payment method) and that key can never charge afterwards: `not_found`.
 */
export async function syncOfAuthorization(client: AdyenClient, request: SyncRequest): Promise<SyncOutcome> {
  const redirectResult = request.returnParams?.redirectResult;
  if (redirectResult) {
    const response = await client.post(
      request.credentials,
      '/payments/details',
      { details: { redirectResult } },
      `${request.idempotencyKey}-details`,
    );
    return syncOf(bodyOf<AdyenPaymentResponse>(response), request);
  }
  const probe = {
    merchantAccount: request.credentials.merchant_account,
    reference: request.reference,
    amount: { value: 0, currency: request.currency },
  };
  const response = await client.post(request.credentials, '/payments', probe, request.idempotencyKey);
  if (response.status === 422) return { ...blank, status: 'not_found', providerTransactionId: null };
  return syncOf(bodyOf<AdyenPaymentResponse>(response), request);
}

/** Field checks first, then Adyen itself: `POST /paymentMethods` for the merchant account. */
export async function verifyAdyen(client: AdyenClient, credentials: Record<string, string>): Promise<VerifyOutcome> {
  const problems = fieldProblems(credentials);
  if (problems.length > 0) return { ok: false, problems };
  const response = await client.post(
    credentials,
    '/paymentMethods',
    { merchantAccount: credentials.merchant_account },
    null,
  );
  if (response.status >= 200 && response.status < 300) return { ok: true, problems: [] };
  if (response.status === 401)
    return { ok: false, problems: [{ key: 'api_key', message: 'Adyen refused the API key (401 Unauthorized)' }] };
  if (response.status === 403 || response.status === 422) {
    return {
      ok: false,
      problems: [
        {
          key: 'merchant_account',
          message: `Adyen does not allow this API key to use the merchant account "${credentials.merchant_account}" (${response.status})`,
        },
      ],
    };
  }
  throw httpError(response.status, response.json);
}

function fieldProblems(credentials: Record<string, string>): VerifyOutcome['problems'] {
  const problems: VerifyOutcome['problems'] = [];
  if (!credentials.api_key?.trim()) problems.push({ key: 'api_key', message: 'api_key is required' });
  if (!credentials.merchant_account?.trim())
    problems.push({ key: 'merchant_account', message: 'merchant_account is required' });
  const prefix = credentials.live_url_prefix;
  if (prefix && !/^[A-Za-z0-9-]{1,100}$/.test(prefix))
    problems.push({
      key: 'live_url_prefix',
      message:
        'live_url_prefix must be the letters, digits and dashes of your live endpoint prefix (Customer Area, Developers > API URLs)',
    });
  const hmac = credentials.hmac_key;
  if (hmac && !/^([0-9a-fA-F]{2}){16,}$/.test(hmac))
    problems.push({
      key: 'hmac_key',
      message: 'hmac_key must be the hexadecimal HMAC key of the webhook (Customer Area, Developers > Webhooks)',
    });
  const multi = credentials.multi_capture_enabled;
  if (multi !== undefined && multi !== 'true' && multi !== 'false')
    problems.push({ key: 'multi_capture_enabled', message: 'multi_capture_enabled must be "true" or "false"' });
  const first = credentials.settlement_first_batch?.trim();
  if (first && !(first.length <= 9 && [...first].every((c) => c >= '0' && c <= '9') && Number(first) > 0))
    problems.push({
      key: 'settlement_first_batch',
      message: 'settlement_first_batch must be a settlement batch number (a positive whole number)',
    });
  if (Boolean(credentials.report_username?.trim()) !== Boolean(credentials.report_password))
    problems.push({
      key: credentials.report_username?.trim() ? 'report_password' : 'report_username',
      message: 'report_username and report_password go together (or set report_api_key instead)',
    });
  const currency = credentials.verification_currency;
  if (currency && !isCurrency(currency))
    problems.push({ key: 'verification_currency', message: 'verification_currency must be an ISO 4217 currency code' });
  return problems;
}
