import type { PaymentConnector, TokenizeOutcome } from '../../connectors/connector.ts';
import { withRequestTransaction, type RequestContext } from '../../context.ts';
import type { PaymentServiceTokenRow } from '../../db/schema-payment-service-tokens.ts';
import { withTransaction, type Executor, type Tx } from '../../db/transaction.ts';
import { AppError, duplicateRecord, fieldRefusal, notFound } from '../../errors/app-error.ts';
import { uuidv7 } from '../../lib/ids.ts';
import type { Binding } from '../../vault/vault.ts';
import { recordAudit } from '../audit-logs/audit-logs.service.ts';
import { assertPaymentMethodExists, lockAndReleaseCard } from '../payment-methods/payment-methods.service.ts';
import {
  credentialsOf,
  findUsablePaymentService,
  type PaymentServiceRow,
} from '../payment-services/payment-services.service.ts';
import { callConnector, type CallResult } from '../transactions/connector-call.ts';
import { nextCheckAt } from '../transactions/outcomes.ts';
import * as repo from './payment-service-tokens.repo.ts';
import {
  toPaymentServiceTokenResource,
  type ListPaymentServiceTokensQuery,
  type PaymentServiceToken,
  type PaymentServiceTokenCreateBody,
} from './payment-service-tokens.schemas.ts';

/** The vault binding of a token's ciphertext: the row it belongs to. */
export const binding = (id: string): Binding => ({ table: 'payment_service_tokens', column: 'token', rowId: id });
const auditName = (service: Pick<PaymentServiceRow, 'display_name'>) =>
  `payment service token at ${service.display_name}`;

/** The token value of a row, from the vault; null until provisioning succeeded. */
async function tokenOf(db: Executor, ctx: RequestContext, row: PaymentServiceTokenRow): Promise<string | null> {
  if (!row.token_ciphertext || !row.token_key_id) return null;
  return ctx.deps.vault.decrypt(
    db,
    ctx.merchantAccountId,
    { ciphertext: row.token_ciphertext, keyId: row.token_key_id },
    binding(row.id),
  );
}

const refuseService = (id: string, reason: string) =>
  fieldRefusal('body', '/payment_service_id', reason, 'value_error', `The payment service ${id} ${reason}`);

type Tokenizer = Required<Pick<PaymentConnector, 'tokenize'>>;

/** The service named by the body, when it may create tokens: active, enabled, and its connector can. */
async function tokenizingService(
  tx: Tx,
  ctx: RequestContext,
  id: string,
): Promise<{ service: PaymentServiceRow; connector: Tokenizer }> {
  const service = await findUsablePaymentService(tx, ctx.merchantAccountId, id);
  if (!service) throw refuseService(id, 'could not be found');
  if (!service.active) throw refuseService(id, 'is not active');
  if (!service.payment_method_tokenization_enabled)
    throw refuseService(id, 'does not have payment_method_tokenization_enabled');
  const connector = ctx.deps.connectors.find(service.payment_service_definition_id);
  const sandbox = connector
    ? null
    : ctx.deps.connectors.sandboxRefusal(service.payment_service_definition_id, '/payment_service_id');
  if (sandbox) throw sandbox;
  if (!connector?.definition.capabilities.tokenize || !connector.tokenize)
    throw refuseService(id, `(${service.payment_service_definition_id}) cannot create payment service tokens`);
  return { service, connector: connector as Tokenizer };
}

/**
 * First transaction: locks the card (serializing creates for it), checks the service and the
 * (payment method, payment service) pair, and records the `processing` row. A failed earlier
 * attempt for the pair is replaced; any other answers 409 with its id.
 */
async function recordIntent(ctx: RequestContext, paymentMethodId: string, body: PaymentServiceTokenCreateBody) {
  return withTransaction(ctx.deps.db, async (tx) => {
    const card = await lockAndReleaseCard(tx, ctx, paymentMethodId);
    if (!card.expirationDate)
      throw new AppError(
        'bad_request',
        'The stored card has no expiration date: a payment service token cannot be created for it',
      );
    const { service, connector } = await tokenizingService(tx, ctx, body.payment_service_id);
    const existing = await repo.findTokenOfPair(tx, ctx.merchantAccountId, paymentMethodId, service.id);
    if (existing && existing.status !== 'failed') {
      throw duplicateRecord(
        existing.id,
        `The payment method already has a ${existing.status} token at this payment service; delete it before creating another`,
      );
    }
    if (existing) await repo.deletePaymentServiceToken(tx, ctx.merchantAccountId, existing.id);
    // Due for reconciliation unless the answer comes (a crash during the call leaves it processing).
    const row = await repo.insertPaymentServiceToken(tx, {
      merchant_account_id: ctx.merchantAccountId,
      id: uuidv7(),
      payment_method_id: paymentMethodId,
      payment_service_id: service.id,
      status: 'processing',
      next_check_at: nextCheckAt(0, new Date()),
    });
    const credentials = await credentialsOf(tx, ctx.deps, service);
    return { row, service, connector, credentials, card: { number: card.number, expirationDate: card.expirationDate } };
  });
}

type Outcome = Pick<TokenizeOutcome, 'status' | 'token' | 'approvalUrl' | 'errorCode'>;

/** The outcome to record; null when it is unknown (a timeout), so the row stays `processing`. */
function outcomeOf(result: CallResult<TokenizeOutcome>): Outcome | null {
  if (!result.ok) {
    // `unavailable` and `invalid_request`: nothing was created at the provider.
    return result.kind === 'timeout'
      ? null
      : { status: 'failed', token: null, approvalUrl: null, errorCode: `service_${result.kind}` };
  }
  const { status, token, approvalUrl, errorCode } = result.value;
  if (status === 'succeeded' && !token)
    return { status: 'failed', token: null, approvalUrl: null, errorCode: 'missing_token' };
  return {
    status,
    token: status === 'succeeded' ? token : null,
    approvalUrl: status === 'buyer_approval_required' ? approvalUrl : null,
    errorCode: status === 'failed' ? errorCode : null,
  };
}

/** Second transaction: the outcome, with the token sealed by the vault and bound to the row. */
async function recordOutcome(
  ctx: RequestContext,
  intent: { row: PaymentServiceTokenRow; service: PaymentServiceRow },
  outcome: Outcome | null,
): Promise<PaymentServiceToken> {
  const { row, service } = intent;
  return withRequestTransaction(ctx, async (tx) => {
    // Deleted while the provider was answering: the token created there is forgotten with it.
    const current = await repo.findPaymentServiceToken(tx, ctx.merchantAccountId, row.payment_method_id, row.id, {
      forUpdate: true,
    });
    if (!current) throw notFound('payment service token', row.id);
    let updated = current;
    if (outcome) {
      const sealed = outcome.token
        ? await ctx.deps.vault.encrypt(tx, ctx.merchantAccountId, outcome.token, binding(row.id))
        : null;
      updated = await repo.updatePaymentServiceToken(tx, ctx.merchantAccountId, row.id, {
        status: outcome.status,
        token_ciphertext: sealed?.ciphertext ?? null,
        token_key_id: sealed?.keyId ?? null,
        approval_url: outcome.approvalUrl,
        error_code: outcome.errorCode,
        next_check_at: null,
      });
    }
    await recordAudit(tx, ctx, 'created', { type: 'payment-service-token', id: row.id, name: auditName(service) });
    return toPaymentServiceTokenResource(updated, outcome?.token ?? null);
  });
}

/** Creates the token at the provider, never holding a transaction across the call (STYLE D4). */
export async function createPaymentServiceToken(
  ctx: RequestContext,
  paymentMethodId: string,
  body: PaymentServiceTokenCreateBody,
): Promise<PaymentServiceToken> {
  const intent = await recordIntent(ctx, paymentMethodId, body);
  const { connector, credentials, card, row } = intent;
  const result = await callConnector(
    () =>
      connector.tokenize({
        idempotencyKey: row.id,
        credentials,
        options: null,
        card: { ...card, securityCode: body.security_code ?? null },
        redirectUrl: body.redirect_url,
      }),
    ctx.log,
  );
  if (!result.ok)
    ctx.log.warn(
      { paymentServiceTokenId: row.id, kind: result.kind, ms: result.ms },
      'payment service token: the connector call failed',
    );
  return recordOutcome(ctx, intent, outcomeOf(result));
}

export async function listPaymentServiceTokens(
  ctx: RequestContext,
  paymentMethodId: string,
  query: ListPaymentServiceTokensQuery,
): Promise<{ items: PaymentServiceToken[] }> {
  const db = ctx.deps.db;
  await assertPaymentMethodExists(db, ctx, paymentMethodId);
  const rows = await repo.listPaymentServiceTokens(
    db,
    ctx.merchantAccountId,
    paymentMethodId,
    query.payment_service_id ?? null,
  );
  const items: PaymentServiceToken[] = [];
  for (const row of rows) items.push(toPaymentServiceTokenResource(row, await tokenOf(db, ctx, row)));
  return { items };
}

/** Deletes the token here (its ciphertext goes with the row); the provider is not called. */
export async function deletePaymentServiceToken(
  ctx: RequestContext,
  paymentMethodId: string,
  id: string,
): Promise<void> {
  await withRequestTransaction(ctx, async (tx) => {
    const row = await repo.findPaymentServiceToken(tx, ctx.merchantAccountId, paymentMethodId, id, { forUpdate: true });
    if (!row) throw notFound('payment service token', id);
    const service = await findUsablePaymentService(tx, ctx.merchantAccountId, row.payment_service_id);
    await repo.deletePaymentServiceToken(tx, ctx.merchantAccountId, id);
    await recordAudit(tx, ctx, 'deleted', {
      type: 'payment-service-token',
      id,
      name: auditName(service ?? { display_name: row.payment_service_id }),
    });
  });
}
