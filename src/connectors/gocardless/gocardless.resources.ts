import { ConnectorError, type AuthorizeRequest } from '../connector.ts';
import { bodyOf, type GoCardlessClient } from './gocardless.client.ts';
import { conflictingIdOf } from './gocardless.mapping.ts';

/** The parts of GoCardless's resources we read (developer.gocardless.com/api-reference). */
export interface GcBillingRequest {
  id?: string;
  status?: string;
  metadata?: Record<string, string>;
  links?: { mandate_request_mandate?: string; customer?: string };
}
export interface GcMandate {
  id?: string;
  status?: string;
}
export interface GcPayment {
  id?: string;
  status?: string;
  amount?: number;
  currency?: string;
  metadata?: Record<string, string>;
  links?: { mandate?: string };
}
export interface GcRefund {
  id?: string;
  status?: string;
  amount?: number;
  currency?: string;
  metadata?: Record<string, string>;
  links?: { payment?: string; mandate?: string };
}
export interface GcBillingRequestFlow {
  id?: string;
  authorisation_url?: string;
}

/**
 * Our marks in a resource's `metadata` (at most 3 keys at GoCardless): the attempt that made it,
 * and, on a payment, the billing request (our transaction's id at GoCardless) it collects for.
 */
export const META_ATTEMPT = 'svc_attempt';
export const META_BILLING_REQUEST = 'svc_billing_request';

/** The query parameter of our exit_uri: the payer left GoCardless's page without finishing. */
export const EXIT_MARKER = 'gocardless_exit';

/** Where GoCardless sends the payer back: our return route for this attempt. */
export function returnUrlOf(
  request: Pick<AuthorizeRequest, 'approvalBaseUrl' | 'merchantAccountId' | 'idempotencyKey'>,
) {
  return `${request.approvalBaseUrl}/connector-returns/${encodeURIComponent(request.merchantAccountId ?? '')}/${request.idempotencyKey}`;
}

/**
 * A create with an Idempotency-Key: the new resource, or, when an earlier request with the same
 * key made one (409 idempotent_creation_conflict), that one read back. `kind`: the plural name of
 * the resource (`payments`), also its envelope key.
 */
export async function createOnce<T>(
  client: GoCardlessClient,
  credentials: Record<string, string>,
  kind: string,
  body: Record<string, unknown>,
  key: string,
): Promise<{ status: number; json: unknown; resource: T | null }> {
  const response = await client.call(credentials, 'POST', `/${kind}`, { [kind]: body }, key);
  const conflict = conflictingIdOf(response.status, response.json);
  if (conflict) {
    const found = await client.resource<T>(credentials, kind, conflict);
    if (!found)
      throw new ConnectorError('timeout', `GoCardless named ${conflict} for this key but has no such ${kind}`);
    return { status: 200, json: null, resource: found };
  }
  if (response.status === 422) return { status: 422, json: response.json, resource: null };
  return { status: response.status, json: response.json, resource: bodyOf<Record<string, T>>(response)[kind] ?? null };
}

/** The mandate a fulfilled billing request set up; null before. */
export async function mandateIdOf(
  client: GoCardlessClient,
  credentials: Record<string, string>,
  billingRequestId: string,
): Promise<string | null> {
  const request = await client.resource<GcBillingRequest>(credentials, 'billing_requests', billingRequestId);
  return request?.links?.mandate_request_mandate ?? null;
}

/** Every resource of a list endpoint for a filter (`/payments?mandate=MD1`), following the cursor. */
export async function listAll<T>(
  client: GoCardlessClient,
  credentials: Record<string, string>,
  kind: string,
  filter: Record<string, string>,
): Promise<T[]> {
  const all: T[] = [];
  let after: string | null = null;
  // A mandate with more than 10 pages of 500 collections is not one we made: stop there.
  for (let page = 0; page < 10; page++) {
    const query = new URLSearchParams({ ...filter, limit: '500', ...(after ? { after } : {}) });
    const response = await client.call(credentials, 'GET', `/${kind}?${query.toString()}`, undefined);
    const body = bodyOf<Record<string, unknown> & { meta?: { cursors?: { after?: string | null } } }>(response);
    all.push(...((body[kind] as T[] | undefined) ?? []));
    after = body.meta?.cursors?.after ?? null;
    if (!after) break;
  }
  return all;
}
