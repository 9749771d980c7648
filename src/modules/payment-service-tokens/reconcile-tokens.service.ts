import type { TokenSyncOutcome } from '../../connectors/connector.ts';
import type { Deps } from '../../context.ts';
import type { PaymentServiceTokenRow } from '../../db/schema-payment-service-tokens.ts';
import { withTransaction } from '../../db/transaction.ts';
import { cardHintOf } from '../payment-methods/payment-methods.service.ts';
import { credentialsOf, findUsablePaymentServiceCached } from '../payment-services/payment-services.service.ts';
import { callConnector } from '../transactions/connector-call.ts';
import { nextCheckAt } from '../transactions/outcomes.ts';
import * as repo from './payment-service-tokens.repo.ts';
import { binding } from './payment-service-tokens.service.ts';

type Log = { warn(obj: object, msg?: string): void; info(obj: object, msg?: string): void };
type Final = {
  status: 'succeeded' | 'buyer_approval_required' | 'failed';
  token: string | null;
  approvalUrl: string | null;
  errorCode: string | null;
};

/** Pure: what a provider's answer about an earlier tokenize call means for the row; null: ask again later. */
export function tokenResolution(answer: TokenSyncOutcome): Final | null {
  switch (answer.status) {
    case 'processing':
      return null;
    case 'not_found':
      // The call never reached the provider: nothing exists there.
      return { status: 'failed', token: null, approvalUrl: null, errorCode: 'service_network_error' };
    case 'succeeded':
      return answer.token
        ? { status: 'succeeded', token: answer.token, approvalUrl: null, errorCode: null }
        : { status: 'failed', token: null, approvalUrl: null, errorCode: 'missing_token' };
    case 'buyer_approval_required':
      return { status: 'buyer_approval_required', token: null, approvalUrl: answer.approvalUrl, errorCode: null };
    case 'failed':
      return { status: 'failed', token: null, approvalUrl: null, errorCode: answer.errorCode };
  }
}

/** Looks at the token again later: 5 minutes, 1 hour, then daily after the first check. */
async function postpone(deps: Deps, row: PaymentServiceTokenRow, now: Date): Promise<false> {
  await repo.updatePaymentServiceToken(deps.db, row.merchant_account_id, row.id, {
    checks: row.checks + 1,
    next_check_at: nextCheckAt(row.checks + 1, now),
  });
  return false;
}

/** Asks the provider about one `processing` token (by the create's idempotency key) and records the answer; true when final. */
async function checkToken(deps: Deps, row: PaymentServiceTokenRow, log: Log, now: Date): Promise<boolean> {
  const service = await findUsablePaymentServiceCached(deps.db, deps, row.merchant_account_id, row.payment_service_id);
  const connector = service ? deps.connectors.find(service.payment_service_definition_id) : null;
  const hint = await cardHintOf(deps.db, row.merchant_account_id, row.payment_method_id);
  if (!service || !connector?.syncToken || !hint) return postpone(deps, row, now);
  // The provider is told the card's BIN and last 4 only: our keyed fingerprint stays here.
  const card = { bin: hint.bin, last4: hint.last4 };
  const credentials = await credentialsOf(deps.db, deps, service);
  const syncToken = connector.syncToken.bind(connector);
  const result = await callConnector(
    () => syncToken({ idempotencyKey: row.id, credentials, options: null, card }),
    log,
  );
  const final = result.ok ? tokenResolution(result.value) : null;
  if (!final) return postpone(deps, row, now);
  return withTransaction(deps.db, async (tx) => {
    // Deleted, or answered by another worker, meanwhile: nothing to record.
    const current = await repo.lockTokenById(tx, row.merchant_account_id, row.id);
    if (current?.status !== 'processing') return true;
    const sealed = final.token
      ? await deps.vault.encrypt(tx, row.merchant_account_id, final.token, binding(row.id))
      : null;
    await repo.updatePaymentServiceToken(tx, row.merchant_account_id, row.id, {
      status: final.status,
      token_ciphertext: sealed?.ciphertext ?? null,
      token_key_id: sealed?.keyId ?? null,
      approval_url: final.approvalUrl,
      error_code: final.errorCode,
      checks: row.checks + 1,
      next_check_at: null,
    });
    log.info({ paymentServiceTokenId: row.id, status: final.status }, 'payment service token reconciled');
    return true;
  });
}

/** The reconciliation job: every due `processing` token, a batch at a time. Returns how many became final. */
export async function reconcileDueTokens(
  deps: Deps,
  now: Date,
  log: Log = { warn: () => undefined, info: () => undefined },
): Promise<number> {
  let settled = 0;
  for (const row of await repo.listDueTokens(deps.db, now, 100)) {
    try {
      if (await checkToken(deps, row, log, now)) settled++;
    } catch (error) {
      log.warn(
        { err: error, paymentServiceTokenId: row.id },
        'reconciliation of a payment service token failed; it is tried again later',
      );
      await postpone(deps, row, now);
    }
  }
  return settled;
}
