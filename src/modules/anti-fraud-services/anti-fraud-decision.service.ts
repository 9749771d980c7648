import type {
  AntiFraudConnector,
  AntiFraudOrder,
  AntiFraudOutcome,
} from '../../connectors/anti-fraud/anti-fraud-connector.ts';
import type { RequestContext } from '../../context.ts';
import type { AntiFraudServiceRow } from '../../db/schema-anti-fraud.ts';
import type { Executor } from '../../db/transaction.ts';
import { openAntiFraudFields } from './anti-fraud-service-fields.ts';
import { findActiveAntiFraudService } from './anti-fraud-services.repo.ts';

/**
 * The transaction's `anti_fraud_decision` before its authorization (decision 0139). `null`: no
 * service decided (production without a configured service); `skipped`: a configured service was
 * not asked (see `remote`); `error`: it gave no decision, and the payment goes on as if accepted
 * (fail open), unless a flow rule on `anti_fraud_decision` says otherwise.
 */
export type PaymentAntiFraudDecision = 'accept' | 'reject' | 'review' | 'error' | 'skipped' | null;

/** The transaction event of a configured service's decision (the spec's `anti-fraud-decision*` names). */
export interface AntiFraudDecisionEvent {
  name: 'anti-fraud-decision' | 'anti-fraud-decision-error' | 'anti-fraud-decision-skipped';
  context: Record<string, unknown>;
}

export interface AntiFraudResult {
  decision: PaymentAntiFraudDecision;
  /** Null for the sandbox service and without a service. */
  event: AntiFraudDecisionEvent | null;
  /**
   * The configured service that now holds the payment's order (it decided accept or review), told
   * the authorization's outcome and what follows (decision 0143); null otherwise.
   */
  serviceId: string | null;
}

/** `reason`: why a configured service was not asked (`skipped` only). */
function eventOf(
  row: AntiFraudServiceRow,
  outcome: AntiFraudOutcome | null,
  decision: PaymentAntiFraudDecision,
  reason?: string,
) {
  const name =
    decision === 'error'
      ? 'anti-fraud-decision-error'
      : decision === 'skipped'
        ? 'anti-fraud-decision-skipped'
        : 'anti-fraud-decision';
  return {
    name,
    context: {
      anti_fraud_service_id: row.id,
      anti_fraud_service_definition_id: row.anti_fraud_service_definition_id,
      decision,
      raw_status: outcome?.raw.status ?? null,
      raw_description: outcome?.raw.description ?? null,
      ...(reason ? { reason } : {}),
    },
  } satisfies AntiFraudDecisionEvent;
}

/**
 * The outer bound of a decision, whatever the connector does: its own HTTP timeout (5 s) plus a
 * second for the vault and the relay's address check. Past it the payment goes on with `error`.
 */
export const ANTI_FRAUD_DECISION_TIMEOUT_MS = 6_000;

async function bounded(connector: AntiFraudConnector, credentials: Record<string, string>, order: AntiFraudOrder) {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<AntiFraudOutcome>((resolve) => {
    timer = setTimeout(
      () => resolve({ decision: 'error', raw: { status: 'timeout', description: null } }),
      ANTI_FRAUD_DECISION_TIMEOUT_MS,
    );
  });
  try {
    return await Promise.race([
      connector
        .decide({ credentials, order })
        .catch((): AntiFraudOutcome => ({ decision: 'error', raw: { status: 'exception', description: null } })),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** The merchant account's active anti-fraud service, or null (the sandbox's built-in one, or none, decides). */
export async function activeAntiFraudService(db: Executor, ctx: RequestContext): Promise<AntiFraudServiceRow | null> {
  // From the process's cache: no statement on the authorization's hot path once it is warm. `db`
  // loads on a miss (the request's transaction when there is one: PGlite has one session).
  const row = await ctx.deps.readCaches.antiFraudServices.get(
    ctx.merchantAccountId,
    async () => (await findActiveAntiFraudService(db, ctx.merchantAccountId)) ?? null,
    db,
  );
  return (row as AntiFraudServiceRow | null) ?? null;
}

/**
 * Asks the merchant account's active anti-fraud service, or in the sandbox the built-in one when
 * none is configured; `connectionOptions`: the request's, of which the service gets its own
 * definition's entry. `remote: false`: the caller holds a database transaction open, so a
 * configured service, which is called over the network, is not asked (`skipped`; STYLE D4).
 */
export async function decideAntiFraud(
  db: Executor,
  ctx: RequestContext,
  order: AntiFraudOrder,
  options: { remote: boolean; connectionOptions?: Record<string, unknown> | null | undefined },
): Promise<AntiFraudResult> {
  const row = await activeAntiFraudService(db, ctx);
  if (!row) {
    const builtIn = ctx.deps.antiFraud.builtIn();
    const decision = builtIn ? (await builtIn.decide({ credentials: {}, order })).decision : null;
    return { decision, event: null, serviceId: null };
  }
  const service = row as AntiFraudServiceRow;
  const connector = ctx.deps.antiFraud.find(row.anti_fraud_service_definition_id);
  if (!connector) return { decision: 'error', event: eventOf(service, null, 'error'), serviceId: null };
  // Every form is screened before its database transaction opens (decision 0144): only a service
  // made active meanwhile by another request is found here.
  if (!options.remote)
    return {
      decision: 'skipped',
      event: eventOf(service, null, 'skipped', 'database_transaction_open'),
      serviceId: null,
    };
  // The full card number is for the sandbox service's test cards only; a real service gets BIN and last four.
  const own = options.connectionOptions?.[row.anti_fraud_service_definition_id];
  const safe: AntiFraudOrder = {
    ...order,
    card: order.card ? { ...order.card, number: null } : null,
    options: own && typeof own === 'object' ? (own as Record<string, unknown>) : null,
  };
  const credentials = await openAntiFraudFields(db, ctx.deps, service);
  const outcome = await bounded(connector, credentials, safe);
  if (outcome.decision === 'error')
    ctx.log.warn(
      { antiFraudService: row.id, definition: row.anti_fraud_service_definition_id, status: outcome.raw.status },
      'anti-fraud service gave no decision; the payment goes on (fail open)',
    );
  const holds = outcome.decision === 'accept' || outcome.decision === 'review';
  return {
    decision: outcome.decision,
    event: eventOf(service, outcome, outcome.decision),
    serviceId: holds ? service.id : null,
  };
}
