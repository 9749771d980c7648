import type { InboundWebhookRequest } from '../../connectors/connector-webhooks.ts';
import type { Deps } from '../../context.ts';
import { withTransaction } from '../../db/transaction.ts';
import { AppError, notFound, unauthorized } from '../../errors/app-error.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { credentialsOf, findUsablePaymentServiceCached } from '../payment-services/payment-services.service.ts';
import { findDefinitionConnector } from '../payment-service-definitions/payment-service-definitions.service.ts';
import { applyProviderAction } from '../transactions/inbound/provider-events.service.ts';
import { toInboundWebhookReceipt, type InboundWebhookReceipt } from './inbound-webhooks.schemas.ts';
import * as repo from './inbound-webhooks.repo.ts';

type Log = { warn(obj: object, msg?: string): void; info(obj: object, msg?: string): void };

/**
 * `POST /merchant-accounts/{id}/payment-services/{id}/webhooks`: a provider's event. The
 * connector verifies the provider's signature with the service's decrypted credentials (a bad one
 * is 401 and nothing changes); the event is then recorded once by its provider id and its actions
 * applied in the same database transaction, so a replay, or two deliveries at once, apply it once.
 */
export async function receiveProviderWebhook(deps: Deps, log: Log, merchantAccountId: string, paymentServiceId: string, request: InboundWebhookRequest): Promise<InboundWebhookReceipt> {
  const service = await findUsablePaymentServiceCached(deps.db, deps, merchantAccountId, paymentServiceId);
  if (!service) throw notFound('payment service', paymentServiceId);
  const connector = findDefinitionConnector(deps, service.payment_service_definition_id);
  if (!connector?.parseWebhook) throw new AppError('bad_request', `The payment service definition ${service.payment_service_definition_id} does not receive webhooks`);
  const outcome = connector.parseWebhook(await credentialsOf(deps.db, deps, service), request);
  if (outcome.status === 'rejected') {
    // The reason is ours (which check failed), never the provider's body or a secret.
    log.warn({ paymentServiceId, reason: outcome.reason }, 'inbound provider webhook rejected');
    throw unauthorized('The webhook could not be verified: its signature, timestamp or the payment service\'s webhook secret did not check out');
  }
  const scope = { merchantAccountId, paymentServiceId, eventId: outcome.eventId };
  const overCapture = connector.definition.capabilities.overCapture;
  return withTransaction(deps.db, async (tx) => {
    if (!(await repo.insertEventOnce(tx, { merchant_account_id: merchantAccountId, payment_service_id: paymentServiceId, event_id: outcome.eventId, id: uuidv7() }))) {
      const earlier = await repo.findEvent(tx, merchantAccountId, paymentServiceId, outcome.eventId);
      return toInboundWebhookReceipt(outcome.eventId, true, earlier?.actions ?? []);
    }
    const applied: Array<Record<string, unknown>> = [];
    for (const action of outcome.actions) applied.push({ ...(await applyProviderAction(tx, deps, scope, action, log, overCapture)) });
    await repo.recordActions(tx, merchantAccountId, paymentServiceId, outcome.eventId, applied);
    log.info({ paymentServiceId, eventId: outcome.eventId, actions: applied.map((a) => `${String(a.kind)}:${String(a.result)}`) }, 'inbound provider webhook applied');
    return toInboundWebhookReceipt(outcome.eventId, false, applied);
  });
}
