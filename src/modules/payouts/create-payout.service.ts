import { callConnector, UNANSWERED, unknownOutcome } from '../../connectors/call.ts';
import type { PaymentConnector, PayoutMerchant } from '../../connectors/connector.ts';
import { withRequestTransaction, type RequestContext } from '../../context.ts';
import type { PayoutRow } from '../../db/schema-payouts.ts';
import { withTransaction, type Executor, type Tx } from '../../db/transaction.ts';
import { invalidField, notFound } from '../../errors/app-error.ts';
import { uuidToBase62 } from '../../lib/base62.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { recordAudit } from '../audit-logs/audit-logs.service.ts';
import { canReadPersonalData } from '../buyers/buyers.service.ts';
import {
  credentialsOf,
  findUsablePaymentService,
  type PaymentServiceRow,
} from '../payment-services/payment-services.service.ts';
import { checkBuyerFields, resolveBuyer, resolveDestination, type Destination } from './payout-destination.ts';
import { auditedPayout, emitPayout } from './payout-events.ts';
import { nextCheckAt, resolveCall } from './payout-status.ts';
import type { CreatePayoutBody, Payout, PayoutMerchantJson } from './payouts.schemas.ts';
import { toPayoutResource } from './payout.resource.ts';
import * as repo from './payouts.repo.ts';
import { getPayout } from './payouts.service.ts';

const json = (value: unknown) => (value === undefined || value === null ? null : JSON.stringify(value));

/** The payment service must exist here, be active, accept the currency and make payouts. */
async function payoutService(
  db: Executor,
  ctx: RequestContext,
  body: CreatePayoutBody,
): Promise<{ service: PaymentServiceRow; connector: PaymentConnector }> {
  const service = await findUsablePaymentService(db, ctx.merchantAccountId, body.payment_service_id);
  if (!service) throw notFound('payment service', body.payment_service_id);
  if (!service.active)
    throw invalidField('body', '/payment_service_id', 'The payment service is not active', 'payment_service_inactive');
  const connector = ctx.deps.connectors.find(service.payment_service_definition_id);
  if (!connector)
    throw (
      ctx.deps.connectors.sandboxRefusal(service.payment_service_definition_id, '/payment_service_id') ??
      invalidField(
        'body',
        '/payment_service_id',
        `No connector is available for ${service.payment_service_definition_id}`,
      )
    );
  if (!connector.definition.capabilities.payout || !connector.payout) {
    throw invalidField(
      'body',
      '/payment_service_id',
      `The payment service's connector (${service.payment_service_definition_id}) does not make payouts`,
      'payouts_not_supported',
    );
  }
  if (!service.accepted_currencies.includes(body.currency))
    throw invalidField(
      'body',
      '/currency',
      `The payment service does not accept ${body.currency}`,
      'currency_not_accepted',
    );
  return { service, connector };
}

/** What the recording transaction hands to the connector call (the card number in memory only). */
interface Started {
  row: PayoutRow;
  attemptId: string;
  connector: PaymentConnector;
  credentials: Record<string, string>;
  destination: Destination;
}

/** Phase 1: checks, then the payout (`pending`) and its attempt (`in_flight`) committed before any connector call. */
async function start(ctx: RequestContext, body: CreatePayoutBody): Promise<Started> {
  return withTransaction(ctx.deps.db, async (tx) => {
    const { service, connector } = await payoutService(tx, ctx, body);
    const destination = await resolveDestination(tx, ctx, body.payment_method, connector.definition);
    const buyer = await resolveBuyer(tx, ctx, body, destination.ownerBuyerId);
    const id = uuidv7();
    const attemptId = uuidv7();
    const now = new Date();
    const row = await repo.insertPayoutWithAttempt(
      tx,
      {
        merchant_account_id: ctx.merchantAccountId,
        id,
        status: 'pending',
        amount: body.amount,
        currency: body.currency,
        category: body.category ?? null,
        external_identifier: body.external_identifier ?? null,
        payment_service_id: service.id,
        payment_service: JSON.stringify({
          id: service.id,
          payment_service_definition_id: service.payment_service_definition_id,
          method: service.method,
          display_name: service.display_name,
        }),
        payment_method_id: destination.paymentMethodId,
        payment_method: JSON.stringify(destination.snapshot),
        buyer_id: buyer.buyerId,
        buyer: json(buyer.snapshot),
        merchant: json(body.merchant),
        connection_options: json(body.connection_options),
        payment_service_payout_id: null,
        error_code: null,
        raw_response_code: null,
        raw_response_description: null,
        created_at: now,
        updated_at: now,
      },
      // Looked at by reconciliation if this process never records the answer (a crash).
      {
        merchant_account_id: ctx.merchantAccountId,
        id: attemptId,
        payout_id: id,
        payment_service_id: service.id,
        status: 'in_flight',
        provider_reference: null,
        error_code: null,
        raw_response_code: null,
        raw_response_description: null,
        next_check_at: nextCheckAt(0, now),
        created_at: now,
        updated_at: now,
      },
    );
    // Committed with the payout: a retry after a crash resumes it instead of paying out again.
    if (ctx.idempotency) await ctx.idempotency.bindResource(tx, id);
    await recordAudit(tx, ctx, 'created', auditedPayout(row));
    const credentials = await credentialsOf(tx, ctx.deps, service);
    return { row, attemptId, connector, credentials, destination };
  });
}

function merchantOf(merchant: PayoutMerchantJson | null | undefined): PayoutMerchant | null {
  if (!merchant) return null;
  const a = merchant.address;
  return {
    name: merchant.name,
    identificationNumber: merchant.identification_number,
    phoneNumber: merchant.phone_number,
    url: merchant.url,
    statementDescriptor: merchant.statement_descriptor,
    merchantCategoryCode: merchant.merchant_category_code,
    address: a
      ? {
          line1: a.line1 ?? null,
          line2: a.line2 ?? null,
          houseNumberOrName: a.house_number_or_name ?? null,
          organization: a.organization ?? null,
          city: a.city ?? null,
          postalCode: a.postal_code ?? null,
          state: a.state ?? null,
          stateCode: a.state_code ?? null,
          country: a.country ?? null,
        }
      : null,
  };
}

/** The recipient's name from the payout's buyer snapshot (its billing details), for providers that ask for it. */
function recipientOf(
  buyer: Record<string, unknown> | null,
): { firstName: string | null; lastName: string | null } | null {
  const details = buyer?.billing_details as { first_name?: unknown; last_name?: unknown } | null | undefined;
  const text = (value: unknown) => (typeof value === 'string' && value.trim() ? value.trim() : null);
  const name = { firstName: text(details?.first_name), lastName: text(details?.last_name) };
  return name.firstName || name.lastName ? name : null;
}

/** Phase 2, outside any database transaction (STYLE D4): the attempt id is the provider's idempotency key, so a retry never pays twice. */
async function callPayout(ctx: RequestContext, started: Started, body: CreatePayoutBody) {
  const { row, connector } = started;
  const definition = connector.definition.id;
  const options =
    (body.connection_options as Record<string, Record<string, unknown> | null> | null | undefined)?.[definition] ??
    null;
  return callConnector(
    () =>
      connector.payout!({
        idempotencyKey: started.attemptId,
        credentials: started.credentials,
        options,
        reference: uuidToBase62(row.id),
        amount: row.amount,
        currency: row.currency,
        category: row.category,
        instrument: started.destination.instrument,
        merchant: merchantOf(body.merchant),
        recipient: recipientOf(row.buyer),
      }),
    unknownOutcome(ctx.log, { payoutId: row.id }),
  );
}

/** Phase 3, one database transaction: the answer on the attempt and the payout, the webhook event, the idempotent response. */
async function finish(ctx: RequestContext, started: Started, result: CallResult): Promise<Payout> {
  return withRequestTransaction(ctx, (tx) => finishIn(tx, ctx, started.row.id, started.attemptId, result));
}

type CallResult = Awaited<ReturnType<typeof callPayout>>;

/** `finish` in the caller's transaction (also a resumed payout's: resumePayout). */
async function finishIn(
  tx: Tx,
  ctx: RequestContext,
  payoutId: string,
  attemptId: string,
  result: CallResult,
): Promise<Payout> {
  const reveal = canReadPersonalData(ctx);
  // The payout first, then its attempt: reconciliation locks in the same order.
  const current = (await repo.findPayout(tx, ctx.merchantAccountId, payoutId, { forUpdate: true }))!;
  const attempt = await repo.findAttempt(tx, ctx.merchantAccountId, attemptId, { forUpdate: true });
  // Reconciliation settled it meanwhile (this process stalled past its first check): keep its answer.
  if (attempt?.status !== 'in_flight') return toPayoutResource(current, reveal);
  const resolved = resolveCall(result);
  const now = new Date();
  await repo.updateAttempt(
    tx,
    ctx.merchantAccountId,
    attempt.id,
    {
      status: resolved.attemptStatus,
      provider_reference: resolved.providerPayoutId,
      error_code: resolved.errorCode ?? (result.ok ? null : result.kind),
      raw_response_code: resolved.rawResponseCode,
      raw_response_description: resolved.rawResponseDescription,
      next_check_at: resolved.open ? nextCheckAt(0, now) : null,
    },
    now,
  );
  const row = await repo.updatePayout(
    tx,
    ctx.merchantAccountId,
    current.id,
    {
      status: resolved.status,
      payment_service_payout_id: resolved.providerPayoutId,
      error_code: resolved.errorCode,
      raw_response_code: resolved.rawResponseCode,
      raw_response_description: resolved.rawResponseDescription,
    },
    now,
  );
  await emitPayout(tx, ctx.deps, row);
  return toPayoutResource(row, reveal);
}

/**
 * `resume` of `POST /payouts` (http/idempotency.ts): the payout the first request recorded before it
 * died or failed. A call whose answer was never recorded (the attempt still `in_flight`) is recorded
 * now without one, as a timeout is: the payout stays `pending`, its `payout.pending` webhook goes
 * out, and reconciliation asks the provider. The provider is never called again.
 */
export async function resumePayout(ctx: RequestContext, payoutId: string): Promise<Payout> {
  const attempt = await repo.findAttemptOfPayout(ctx.deps.db, ctx.merchantAccountId, payoutId);
  if (!attempt) return getPayout(ctx, payoutId);
  return withRequestTransaction(ctx, (tx) => finishIn(tx, ctx, payoutId, attempt.id, UNANSWERED));
}

/**
 * `POST /payouts`: record the payout and its attempt, call the connector outside any database
 * transaction, record the answer. A declined or failed payout is still 201 with its status; a
 * timeout leaves it `pending` until reconciliation (the `reconcile-payouts` job) settles it.
 */
export async function createPayout(ctx: RequestContext, body: CreatePayoutBody): Promise<Payout> {
  checkBuyerFields(body);
  const started = await start(ctx, body);
  const result = await callPayout(ctx, started, body);
  return finish(ctx, started, result);
}
