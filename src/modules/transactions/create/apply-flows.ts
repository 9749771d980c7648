import type { RequestContext } from '../../../context.ts';
import type { PaymentServiceRow } from '../../../db/schema.ts';
import type { TransactionActionJson, TransactionRow } from '../../../db/schema-transactions.ts';
import type { Executor } from '../../../db/transaction.ts';
import { firstMatch, routeOutcomeOf, type FlowRule } from '../../flows/flow-decisions.ts';
import { velocityTrace } from '../../flows/velocity-condition.ts';
import {
  cardMacOf,
  velocityCheck,
  type VelocityCheck,
  type VelocityKeyValues,
} from '../../velocity/velocity.service.ts';
import { dimensionKeys } from '../../routing-stats/dimensions.ts';
import { strategyRanker } from '../../routing-stats/strategy-ranker.ts';
import { listRoutablePaymentServices } from '../../payment-services/payment-services.service.ts';
import type { CreateTransactionBody } from '../create-transaction.schema.ts';
import type { Applied } from '../outcomes.ts';
import type { FailoverPlan } from '../routing/failover.ts';
import type { ConnectorDefinition } from '../../../connectors/connector.ts';
import { chooseRoute } from '../routing/flow-route.ts';
import type { RoutingRequest } from '../routing/routing.ts';
import { flowOf, transactionFacts } from '../routing/transaction-facts.ts';
import { intentOutcome, nextStatus } from '../transaction-status.ts';
import type { ResolvedInstrument } from './instrument.ts';

/**
 * The flow rules of a new transaction (docs/routing.md): `decline-early`, then
 * `route-transaction` (the service, and the failover plan of a matched rule), then `skip-3ds`.
 * The rules and, outside a database transaction (the card hot path), the routable services come
 * from per-process caches: no database round trip.
 */
export interface FlowsApplied {
  flow: TransactionActionJson['flow'];
  /** Set when a decline-early rule matched: no service, no connector call. */
  declined: FlowRule | null;
  service: PaymentServiceRow | null;
  plan: FailoverPlan | null;
  /** A skip-3ds rule matched: the sandbox 3DS server is not asked. */
  skip3ds: boolean;
  actions: TransactionActionJson[];
  /** The success-rate dimension keys of the transaction, most specific first (its outcomes count under each). */
  routingKeys: readonly string[];
  /** Set when the account's rules use velocity: the attempt is counted; its decline is counted after the answer. */
  velocity: VelocityCheck | null;
}

export interface FlowInputs {
  body: CreateTransactionBody;
  instrument: ResolvedInstrument;
  antiFraudDecision: string | null;
  buyerExternalIdentifier: string | null;
  /** The transaction's id: the key of a weighted split when the request has no external_identifier. */
  transactionId: string;
  /** What velocity conditions count by (the card fingerprint, stored buyer, e-mail and IP address). */
  velocityKeys: Omit<VelocityKeyValues, 'card_fingerprint'>;
}

/** The velocity check of the transaction, when the account's rules use velocity (else nothing is counted). */
async function velocityOf(tx: Executor, ctx: RequestContext, input: FlowInputs): Promise<VelocityCheck | null> {
  const needs = await ctx.deps.flowRules.velocityNeeds(ctx.merchantAccountId, tx);
  if (!needs) return null;
  const { body, instrument } = input;
  const values = { ...input.velocityKeys, card_fingerprint: instrument.fingerprint };
  const current = { currency: body.currency, amount: body.amount, card: cardMacOf(instrument.fingerprint) };
  return velocityCheck(ctx.deps, tx, ctx.merchantAccountId, needs, values, current);
}

/** The outcome of a matched rule, with the counts its velocity conditions saw. */
function withVelocity(outcome: Record<string, unknown>, rule: FlowRule, velocity: VelocityCheck | null) {
  const trace = velocity ? velocityTrace(rule.conditions, velocity.lookup) : [];
  return trace.length > 0 ? { ...outcome, velocity: trace } : outcome;
}

export async function applyFlows(tx: Executor, ctx: RequestContext, input: FlowInputs): Promise<FlowsApplied> {
  const { body, instrument } = input;
  const flow = flowOf(instrument);
  const velocity = await velocityOf(tx, ctx, input);
  const facts = {
    ...transactionFacts(body, instrument, input.antiFraudDecision, input.buyerExternalIdentifier),
    velocity: velocity?.lookup ?? null,
  };
  const rules = (action: 'decline-early' | 'route-transaction' | 'skip-3ds') =>
    ctx.deps.flowRules.rules(ctx.merchantAccountId, flow, action, tx);
  const now = new Date();
  const decided = (
    id: TransactionActionJson['id'],
    rule: FlowRule,
    outcome: Record<string, unknown>,
  ): TransactionActionJson => ({ id, flow, rule_id: rule.id, created_at: now.toISOString(), outcome });
  const earlyRules = await rules('decline-early');
  // Checked and counted with no await between: concurrent attempts of this process see each other.
  const declined = firstMatch(earlyRules, facts);
  const declinedOutcome = declined
    ? withVelocity({ ...declined.outcome, error_code: 'flow_decline' }, declined, velocity)
    : null;
  velocity?.recordAttempt();
  if (declined)
    return {
      flow,
      declined,
      service: null,
      plan: null,
      skip3ds: false,
      actions: [decided('decline-early', declined, declinedOutcome!)],
      routingKeys: [],
      velocity,
    };

  const rows = await listRoutablePaymentServices(tx, ctx.deps, ctx.merchantAccountId);
  const forced = body.payment_service_id ?? null;
  // A sandbox service named in production is refused by name (unforced routing just skips it: no connector).
  const forcedRow = forced ? rows.find((row) => row.id === forced) : undefined;
  const sandbox = forcedRow
    ? ctx.deps.connectors.sandboxRefusal(forcedRow.payment_service_definition_id, '/payment_service_id')
    : null;
  if (sandbox) throw sandbox;
  const definitions = ctx.deps.connectors.definitions();
  const request = {
    method: facts.method ?? instrument.method,
    currency: body.currency,
    country: body.country ?? null,
    forcedServiceId: forced,
    knownDefinitions: new Set(definitions.map((d) => d.id)),
    walletToken: walletTokenRoute(instrument, definitions),
    networkToken: networkTokenRoute(instrument, definitions),
    breakers: ctx.deps.breakers.view(ctx.merchantAccountId),
  };
  const rule = forced ? null : firstMatch(await rules('route-transaction'), facts);
  const cardType = (instrument.snapshot.card_type as string | null | undefined) ?? null;
  const routingKeys = dimensionKeys({
    scheme: facts.scheme,
    currency: body.currency,
    country: facts.country,
    cardType,
    issuerCountry: facts.issuerCountry,
  });
  const rank = rule
    ? await strategyRanker({
        stats: ctx.deps.routingStats,
        db: tx,
        merchantAccountId: ctx.merchantAccountId,
        outcome: routeOutcomeOf(rule),
        keys: routingKeys,
        seed: input.transactionId,
        facts: { amount: body.amount, currency: body.currency, scheme: facts.scheme, cardType, country: facts.country },
        rows,
      })
    : null;
  const splitKey = body.external_identifier ?? input.transactionId;
  const routed = chooseRoute(rows, rule, request, flow, splitKey, now, rank);
  const skip = flow === 'card-transaction' ? firstMatch(await rules('skip-3ds'), facts) : null;
  const routeAction = rule
    ? { ...routed.action, outcome: withVelocity(routed.action.outcome, rule, velocity) }
    : routed.action;
  const actions = [routeAction, ...(skip ? [decided('skip-3ds', skip, withVelocity({}, skip, velocity))] : [])];
  const service = routed.service;
  const skip3ds = skip !== null;
  return { flow, declined: null, service, plan: routed.plan, skip3ds, actions, routingKeys, velocity };
}

/** A wallet token passed on encrypted goes only to services whose connector decrypts that wallet's tokens. */
function walletTokenRoute(
  instrument: ResolvedInstrument,
  definitions: readonly ConnectorDefinition[],
): RoutingRequest['walletToken'] {
  if (instrument.instrument.kind !== 'wallet-token') return null;
  const provider = instrument.instrument.provider;
  return {
    provider,
    acceptedBy: new Set(
      definitions.filter((d) => d.capabilities.encryptedWalletTokens?.includes(provider)).map((d) => d.id),
    ),
  };
}

/** A network token goes only to services whose connector takes network tokens (wallet device tokens included). */
function networkTokenRoute(
  instrument: ResolvedInstrument,
  definitions: readonly ConnectorDefinition[],
): RoutingRequest['networkToken'] {
  if (instrument.instrument.kind !== 'network-token') return null;
  return { acceptedBy: new Set(definitions.filter((d) => d.capabilities.networkTokens).map((d) => d.id)) };
}

/** A decline-early rule's stop: declined with `flow_decline` and the rule's reason, before any connector call. */
export const declineEarly =
  (rule: FlowRule) =>
  (row: TransactionRow): Applied => {
    const status = nextStatus(row.status, 'authorization_declined');
    const reason = (rule.outcome.reason as string | undefined) ?? null;
    return {
      attemptStatus: 'declined',
      eventName: 'transaction-updated-status',
      patch: {
        status,
        intent_outcome: intentOutcome(row.intent, status),
        error_code: 'flow_decline',
        raw_response_description: reason,
      },
    };
  };
