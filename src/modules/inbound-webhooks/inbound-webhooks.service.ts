import type {
  InboundWebhookAction,
  InboundWebhookEvent,
  InboundWebhookRequest,
} from '../../connectors/connector-webhooks.ts';
import type { Deps } from '../../context.ts';
import { withTransaction, type Tx } from '../../db/transaction.ts';
import { AppError, notFound, unauthorized } from '../../errors/app-error.ts';
import { inBatchesUntilDone } from '../../lib/batches.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { credentialsOf, findUsablePaymentServiceCached } from '../payment-services/payment-services.service.ts';
import { findDefinitionConnector } from '../payment-service-definitions/payment-service-definitions.service.ts';
import { applyPayoutAction, isPayoutAction } from '../payouts/payout-webhooks.service.ts';
import { enqueueReportIngestion } from '../settlements-ingestion/settlement-ingestion.service.ts';
import { applyProviderAction } from '../transactions/inbound/provider-events.service.ts';
import {
  toInboundWebhookReceipt,
  type InboundWebhookReceipt,
  type ReceivedInboundEvent,
} from './inbound-webhooks.schemas.ts';
import * as repo from './inbound-webhooks.repo.ts';

type Log = { warn(obj: object, msg?: string): void; info(obj: object, msg?: string): void };

/**
 * `POST /merchant-accounts/{id}/payment-services/{id}/webhooks`: a provider's event. The
 * connector verifies the provider's signature with the service's decrypted credentials (a bad one
 * is 401 and nothing changes); each event of the request (one, or one per item of a batch) is then
 * recorded once by its provider id and its actions applied in the same database transaction, so a
 * replay, alone or inside another batch, or two deliveries at once, apply it once.
 */
export async function receiveProviderWebhook(
  deps: Deps,
  log: Log,
  merchantAccountId: string,
  paymentServiceId: string,
  request: InboundWebhookRequest,
): Promise<InboundWebhookReceipt> {
  const service = await findUsablePaymentServiceCached(deps.db, deps, merchantAccountId, paymentServiceId);
  if (!service) throw notFound('payment service', paymentServiceId);
  const connector = findDefinitionConnector(deps, service.payment_service_definition_id);
  if (!connector)
    throw (
      deps.connectors.sandboxRefusal(service.payment_service_definition_id) ??
      new AppError('bad_request', `No connector is available for ${service.payment_service_definition_id}`)
    );
  if (!connector.parseWebhook)
    throw new AppError(
      'bad_request',
      `The payment service definition ${service.payment_service_definition_id} does not receive webhooks`,
    );
  const outcome = await connector.parseWebhook(await credentialsOf(deps.db, deps, service), request);
  if (outcome.status === 'rejected') {
    // The reason is ours (which check failed), never the provider's body or a secret.
    log.warn({ paymentServiceId, reason: outcome.reason }, 'inbound provider webhook rejected');
    throw unauthorized(
      "The webhook could not be verified: its signature, timestamp or the payment service's webhook secret did not check out",
    );
  }
  const { overCapture, void: canVoid } = connector.definition.capabilities;
  return withTransaction(deps.db, async (tx) => {
    const received: ReceivedInboundEvent[] = [];
    for (const event of outcome.events)
      received.push(
        await receiveEvent(
          tx,
          deps,
          log,
          { merchantAccountId, paymentServiceId, eventId: event.eventId, canVoid },
          event.actions,
          overCapture,
        ),
      );
    return toInboundWebhookReceipt(received);
  });
}

/**
 * An event a sandbox simulator's provider reports (the `deliver-simulated-event` job): recorded once
 * by its id and applied exactly as a verified webhook of a real provider is (there is no request to
 * verify: the server made it up itself, deterministically).
 */
export async function receiveSimulatedEvent(
  deps: Deps,
  log: Log,
  scope: { merchantAccountId: string; paymentServiceId: string; canVoid: boolean },
  event: InboundWebhookEvent,
  overCapture: boolean,
): Promise<ReceivedInboundEvent> {
  return withTransaction(deps.db, (tx) =>
    receiveEvent(tx, deps, log, { ...scope, eventId: event.eventId }, event.actions, overCapture),
  );
}

/** Records one event of the request once, by its id, and applies its actions; a replay answers what its first delivery did. */
async function receiveEvent(
  tx: Tx,
  deps: Deps,
  log: Log,
  scope: { merchantAccountId: string; paymentServiceId: string; eventId: string; canVoid: boolean },
  actions: InboundWebhookAction[],
  overCapture: boolean,
): Promise<ReceivedInboundEvent> {
  const { merchantAccountId, paymentServiceId, eventId } = scope;
  if (
    !(await repo.insertEventOnce(tx, {
      merchant_account_id: merchantAccountId,
      payment_service_id: paymentServiceId,
      event_id: eventId,
      id: uuidv7(),
    }))
  ) {
    const earlier = await repo.findEvent(tx, merchantAccountId, paymentServiceId, eventId);
    return { eventId, duplicate: true, actions: earlier?.actions ?? [] };
  }
  const applied: Array<Record<string, unknown>> = [];
  for (const action of actions)
    applied.push(
      action.kind === 'settlement_report_available'
        ? await reportAvailable(tx, deps, scope, action)
        : isPayoutAction(action.kind)
          ? await applyPayoutAction(tx, deps, scope, { ...action, kind: action.kind })
          : { ...(await applyProviderAction(tx, deps, scope, action, log, overCapture)) },
    );
  await repo.recordActions(tx, merchantAccountId, paymentServiceId, eventId, applied);
  log.info(
    { paymentServiceId, eventId, actions: applied.map((a) => `${String(a.kind)}:${String(a.result)}`) },
    'inbound provider webhook applied',
  );
  return { eventId, duplicate: false, actions: applied };
}

/**
 * A provider published a settlement report: its ingestion is enqueued with the event (in its
 * transaction), once per report, when the payment service has `settlement_reporting_enabled`
 * (`settlement_reporting_disabled` otherwise). A notification without the report's name is
 * recorded, not applied.
 */
async function reportAvailable(
  tx: Tx,
  deps: Deps,
  scope: { merchantAccountId: string; paymentServiceId: string },
  action: InboundWebhookAction,
): Promise<Record<string, unknown>> {
  const report = action.providerReferenceId;
  const result = !report
    ? 'already_final'
    : (await enqueueReportIngestion(tx, deps, scope.merchantAccountId, scope.paymentServiceId, report)) !== null
      ? 'applied'
      : 'settlement_reporting_disabled';
  return { kind: action.kind, provider_transaction_id: action.providerTransactionId, transaction_id: null, result };
}

/**
 * Forgets events received more than INBOUND_WEBHOOK_RETENTION_DAYS ago. The rows are what drops a
 * replay, so they outlive the providers' retries (Adyen: 30 days; Braintree, whose signed timestamp
 * is checked: 25 hours); returns how many went.
 */
export async function purgeOldInboundEvents(deps: Deps, now: Date): Promise<number> {
  const before = new Date(now.getTime() - deps.config.inboundWebhookRetentionDays * 24 * 3600 * 1000);
  return inBatchesUntilDone(() => repo.purgeEventsReceivedBefore(deps.db, before));
}
