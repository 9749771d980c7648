import type { ResponseFacts, SyncOutcome, SyncRequest, VerifyOutcome } from '../connector.ts';
import {
  authorizationOf,
  refundStatusOf,
  type BraintreeRefund,
  type BraintreeTransaction,
} from './braintree.answers.ts';
import type { BraintreeClient } from './braintree.client.ts';
import { graphQlError } from './braintree.mapping.ts';
import { FIND, PING, SEARCH_BY_ORDER, SEARCH_REFUNDS_BY_ORDER } from './braintree.queries.ts';

const blank: ResponseFacts = { errorCode: null, rawResponseCode: null, rawResponseDescription: null };
const notFound: SyncOutcome = { ...blank, status: 'not_found', providerTransactionId: null };

type Edges<T> = { edges: Array<{ node: T }> };

/** The transaction an attempt created, by our attempt id in its orderId (null: Braintree never created it). */
async function transactionByOrder(client: BraintreeClient, request: SyncRequest): Promise<BraintreeTransaction | null> {
  const answer = await client.call<{ search: { transactions: Edges<BraintreeTransaction> } }>(
    request.credentials,
    SEARCH_BY_ORDER,
    { input: { orderId: { is: request.idempotencyKey } } },
  );
  if (!answer.data || answer.errors.length > 0) throw graphQlError(answer.status, answer.errors);
  return answer.data.search.transactions.edges[0]?.node ?? null;
}

async function transactionById(
  client: BraintreeClient,
  request: SyncRequest,
  id: string,
): Promise<BraintreeTransaction | null> {
  const answer = await client.call<{ node: (BraintreeTransaction & { __typename: string }) | null }>(
    request.credentials,
    FIND,
    { id },
  );
  if (answer.errors.some((e) => e.extensions?.errorClass === 'NOT_FOUND')) return null;
  if (!answer.data || answer.errors.length > 0) throw graphQlError(answer.status, answer.errors);
  return answer.data.node?.__typename === 'Transaction' ? answer.data.node : null;
}

function outcomeOf(transaction: BraintreeTransaction): SyncOutcome {
  const outcome = authorizationOf(transaction);
  return {
    errorCode: outcome.errorCode,
    rawResponseCode: outcome.rawResponseCode,
    rawResponseDescription: outcome.rawResponseDescription,
    status: outcome.status,
    providerTransactionId: transaction.id,
    schemeTransactionId: outcome.schemeTransactionId,
  };
}

/** A refund by its orderId (our attempt id): the refund mutation may have timed out before answering. */
async function syncRefund(client: BraintreeClient, request: SyncRequest): Promise<SyncOutcome> {
  const answer = await client.call<{ search: { refunds: Edges<BraintreeRefund> } }>(
    request.credentials,
    SEARCH_REFUNDS_BY_ORDER,
    { input: { orderId: { is: request.idempotencyKey } } },
  );
  if (!answer.data || answer.errors.length > 0) throw graphQlError(answer.status, answer.errors);
  const refund = answer.data.search.refunds.edges[0]?.node;
  if (!refund) return notFound;
  const status = refundStatusOf(refund.status);
  const facts =
    status === 'declined' || status === 'failed'
      ? {
          errorCode: 'refund_declined',
          rawResponseCode: refund.status,
          rawResponseDescription: `Refund ${refund.status}`,
        }
      : blank;
  return { ...facts, status: status === 'pending' ? 'refund_pending' : status, providerTransactionId: refund.id };
}

/**
 * What an earlier call became. An authorization is searched by its orderId (the attempt id), so a
 * call that timed out is found, or proven never made, without sending it again (Braintree has no
 * idempotency key for these mutations). Captures and voids read the payment's current status.
 */
export async function syncOfBraintree(client: BraintreeClient, request: SyncRequest): Promise<SyncOutcome> {
  switch (request.operation) {
    case 'authorize': {
      const transaction = request.providerTransactionId
        ? await transactionById(client, request, request.providerTransactionId)
        : await transactionByOrder(client, request);
      return transaction ? outcomeOf(transaction) : notFound;
    }
    case 'capture':
    case 'void': {
      const transaction = request.providerTransactionId
        ? await transactionById(client, request, request.providerTransactionId)
        : null;
      if (!transaction) return notFound;
      const outcome = outcomeOf(transaction);
      // Still AUTHORIZED after a capture without an answer: the capture never happened.
      if (request.operation === 'capture' && outcome.status === 'authorized')
        return {
          ...blank,
          status: 'failed',
          providerTransactionId: transaction.id,
          errorCode: 'capture_declined',
          rawResponseCode: 'AUTHORIZED',
          rawResponseDescription: 'The transaction was not submitted for settlement',
        };
      return outcome;
    }
    case 'refund':
      return syncRefund(client, request);
    case 'increment':
      return notFound;
  }
}

/** Field checks first, then Braintree itself (`ping` with the keys). */
export async function verifyBraintree(
  client: BraintreeClient,
  credentials: Record<string, string>,
): Promise<VerifyOutcome> {
  const problems: VerifyOutcome['problems'] = [];
  for (const key of ['merchant_id', 'public_key', 'private_key'])
    if (!credentials[key]?.trim()) problems.push({ key, message: `${key} is required` });
  if (credentials.environment !== 'sandbox' && credentials.environment !== 'production')
    problems.push({ key: 'environment', message: 'environment must be "sandbox" or "production"' });
  const accounts = credentials.merchant_account_ids?.trim();
  if (accounts && !accounts.split(',').every((pair) => /^\s*[A-Z]{3}\s*=\s*[A-Za-z0-9_-]+\s*$/.test(pair))) {
    problems.push({
      key: 'merchant_account_ids',
      message:
        'merchant_account_ids must be CURRENCY=merchant_account_id pairs separated by commas, e.g. USD=acme_usd,EUR=acme_eur',
    });
  }
  if (problems.length > 0) return { ok: false, problems };
  const answer = await client.call<{ ping: string }>(credentials, PING, {});
  if (answer.data?.ping === 'pong') return { ok: true, problems: [] };
  const error = graphQlError(answer.status, answer.errors);
  if (
    error.kind === 'invalid_request' &&
    (answer.status === 401 || answer.errors.some((e) => e.extensions?.errorClass === 'AUTHENTICATION'))
  ) {
    return {
      ok: false,
      problems: [
        { key: 'private_key', message: 'Braintree refused the public_key and private_key (authentication failed)' },
      ],
    };
  }
  throw error;
}
