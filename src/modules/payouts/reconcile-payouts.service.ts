import { callConnector, unknownOutcome } from '../../connectors/call.ts';
import type { PayoutSyncOutcome } from '../../connectors/connector.ts';
import type { Deps } from '../../context.ts';
import type { PayoutAttemptRow } from '../../db/schema-payouts.ts';
import { withTransaction, type Tx } from '../../db/transaction.ts';
import { uuidToBase62 } from '../../lib/base62.ts';
import { recordSystemAudit, type SystemActor } from '../audit-logs/audit-logs.service.ts';
import { credentialsOf, findUsablePaymentServiceCached } from '../payment-services/payment-services.service.ts';
import { providerAccountIdOf } from '../payment-methods/provider-accounts.service.ts';
import { auditedPayout, emitPayout } from './payout-events.ts';
import { canMove, isOpenAttempt, nextCheckAt, resolveSync } from './payout-status.ts';
import * as repo from './payouts.repo.ts';

type Log = { warn(obj: object, msg?: string): void; info(obj: object, msg?: string): void };
const quiet: Log = { warn: () => undefined, info: () => undefined };

/** Looks again later: 5 minutes, 1 hour, then daily after the call. */
async function later(deps: Deps, attempt: PayoutAttemptRow, now: Date): Promise<void> {
  await repo.updateAttempt(
    deps.db,
    attempt.merchant_account_id,
    attempt.id,
    { checks: attempt.checks + 1, next_check_at: nextCheckAt(attempt.checks + 1, now) },
    now,
  );
}

/**
 * Applies a status answer under the row locks (the payout first, as `POST /payouts` locks). True
 * when the attempt is final. Also a provider's webhook about the payout (payout-webhooks.service.ts).
 */
export async function settle(
  tx: Tx,
  deps: Deps,
  attempt: PayoutAttemptRow,
  answer: PayoutSyncOutcome,
  now: Date,
  actor: SystemActor,
): Promise<boolean> {
  const m = attempt.merchant_account_id;
  const payout = await repo.findPayout(tx, m, attempt.payout_id, { forUpdate: true });
  const current = await repo.findAttempt(tx, m, attempt.id, { forUpdate: true });
  if (!payout || !current || !isOpenAttempt(current.status)) return true;
  const resolved = resolveSync(answer);
  const providerReference = current.provider_reference ?? answer.providerPayoutId;
  if (!resolved) {
    await repo.updateAttempt(
      tx,
      m,
      current.id,
      {
        status: current.status === 'unknown' || current.status === 'in_flight' ? 'pending' : current.status,
        provider_reference: providerReference,
        checks: current.checks + 1,
        next_check_at: nextCheckAt(current.checks + 1, now),
      },
      now,
    );
    // Found again after a lost answer and still pending: the payout shows the provider's id at once.
    if (!payout.payment_service_payout_id && providerReference)
      await repo.updatePayout(tx, m, payout.id, { payment_service_payout_id: providerReference }, now);
    return false;
  }
  await repo.updateAttempt(
    tx,
    m,
    current.id,
    {
      status: resolved.attemptStatus,
      provider_reference: providerReference,
      error_code: resolved.errorCode,
      raw_response_code: resolved.rawResponseCode,
      raw_response_description: resolved.rawResponseDescription,
      checks: current.checks + 1,
      next_check_at: null,
    },
    now,
  );
  if (!canMove(payout.status, resolved.status)) return true;
  const row = await repo.updatePayout(
    tx,
    m,
    payout.id,
    {
      status: resolved.status,
      payment_service_payout_id: payout.payment_service_payout_id ?? providerReference,
      error_code: resolved.errorCode,
      raw_response_code: resolved.rawResponseCode,
      raw_response_description: resolved.rawResponseDescription,
    },
    now,
  );
  await emitPayout(tx, deps, row);
  await recordSystemAudit(tx, m, actor, 'updated', auditedPayout(row));
  return true;
}

/** The stored account a payout was sent to (a PayPal account), as `PayoutSyncRequest.account`; null for a card. */
async function accountOf(deps: Deps, merchantAccountId: string, paymentMethodId: string | null, method?: string) {
  if (!paymentMethodId || !method || method === 'card') return null;
  const accountId = await providerAccountIdOf(deps.db, merchantAccountId, paymentMethodId);
  return accountId ? { method, accountId } : null;
}

/** Asks the payment service what became of one open attempt and applies the answer. True when it is final. */
async function checkAttempt(
  deps: Deps,
  attempt: PayoutAttemptRow,
  log: Log,
  now: Date,
  actor: SystemActor,
): Promise<boolean> {
  const payout = await repo.findPayout(deps.db, attempt.merchant_account_id, attempt.payout_id);
  if (!payout) return true;
  const service = await findUsablePaymentServiceCached(
    deps.db,
    deps,
    attempt.merchant_account_id,
    attempt.payment_service_id,
  );
  const connector = service ? deps.connectors.find(service.payment_service_definition_id) : null;
  if (!service || !connector?.syncPayout) {
    // Nobody can be asked (the service was deleted, or its connector has no status query): look
    // again later, so the payout stays visible as pending rather than being guessed.
    log.warn(
      { payoutId: payout.id, attemptId: attempt.id },
      'no payout status query is available for this payout; it stays pending',
    );
    await later(deps, attempt, now);
    return false;
  }
  const credentials = await credentialsOf(deps.db, deps, service);
  const options =
    (payout.connection_options?.[service.payment_service_definition_id] as
      | Record<string, unknown>
      | null
      | undefined) ?? null;
  const pm = payout.payment_method as { bin?: string | null; label?: string | null; method?: string };
  const account = await accountOf(deps, payout.merchant_account_id, payout.payment_method_id, pm.method);
  const sync = connector.syncPayout.bind(connector);
  const result = await callConnector(
    () =>
      sync({
        idempotencyKey: attempt.id,
        credentials,
        options,
        providerPayoutId: attempt.provider_reference,
        reference: uuidToBase62(payout.id),
        amount: payout.amount,
        currency: payout.currency,
        card: account ? { bin: null, last4: null } : { bin: pm.bin ?? null, last4: pm.label ?? null },
        account,
      }),
    unknownOutcome(log, { payoutId: payout.id, attemptId: attempt.id }),
  );
  if (!result.ok) {
    await later(deps, attempt, now);
    return false;
  }
  return withTransaction(deps.db, (tx) => settle(tx, deps, attempt, result.value, now, actor));
}

/**
 * The `reconcile-payouts` job: every due open payout attempt (no answer, a `pending` answer, or a
 * crash before the answer was recorded), a batch at a time. Returns how many became final.
 */
export async function reconcileDuePayouts(deps: Deps, now: Date, log: Log = quiet, jobId = 'inline'): Promise<number> {
  const actor: SystemActor = { name: 'System (payout reconciliation)', jobName: 'reconcile-payouts', jobId };
  let settled = 0;
  for (const attempt of await repo.listDueAttempts(deps.db, now, 100)) {
    try {
      if (await checkAttempt(deps, attempt, log, now, actor)) settled++;
    } catch (error) {
      log.warn(
        { err: error, attemptId: attempt.id },
        'reconciliation of a payout attempt failed; it is tried again later',
      );
      await later(deps, attempt, now);
    }
  }
  return settled;
}
