import type { RequestContext, Deps } from '../../context.ts';
import { apiError, callConnector as boundedConnectorCall } from '../../connectors/call.ts';
import type { ConnectorDefinition, PaymentConnector } from '../../connectors/connector.ts';
import type { KeysetPage } from '../../db/keyset.ts';
import { AppError, badRequest } from '../../errors/app-error.ts';
import type { CursorPosition } from '../../http/cursor.ts';
import { listPage, type ListEnvelope } from '../../http/pagination.ts';
import {
  toCreateSessionResource,
  toPaymentServiceDefinitionResource,
  type CreateSession,
  type CreateSessionBody,
  type ListPaymentServiceDefinitionsQuery,
  type PaymentServiceDefinition,
} from './payment-service-definitions.schemas.ts';

/**
 * The catalogue lives in code and has no creation time: every definition sorts at this one instant
 * and then by id, so the shared cursor format ([timestamp, id]) carries the id alone in effect.
 */
const CATALOGUE_INSTANT = '1970-01-01T00:00:00.000Z';

/** One page of the in-memory catalogue (sorted by id), with the semantics of `keysetPage`. */
function catalogueSlice(
  all: readonly ConnectorDefinition[],
  position: CursorPosition | null,
  limit: number,
): KeysetPage<ConnectorDefinition> {
  if (!position) return { rows: all.slice(0, limit), hasNext: all.length > limit, hasPrev: false };
  const id = String(position.key[1]);
  const inclusive = position.inclusive === true;
  const indexOr = (i: number) => (i < 0 ? all.length : i);
  if (position.direction === 'next') {
    const from = indexOr(all.findIndex((d) => (inclusive ? d.id >= id : d.id > id)));
    return { rows: all.slice(from, from + limit), hasNext: from + limit < all.length, hasPrev: from > 0 };
  }
  const end = indexOr(all.findIndex((d) => (inclusive ? d.id > id : d.id >= id)));
  const from = Math.max(0, end - limit);
  return { rows: all.slice(from, end), hasNext: end < all.length, hasPrev: from > 0 };
}

export async function listPaymentServiceDefinitions(
  ctx: RequestContext,
  query: ListPaymentServiceDefinitionsQuery,
): Promise<ListEnvelope<PaymentServiceDefinition>> {
  const all = ctx.deps.connectors.definitions();
  return listPage(
    ctx,
    'payment-service-definitions',
    query,
    async (position, limit) => catalogueSlice(all, position, limit),
    toPaymentServiceDefinitionResource,
    (definition) => [CATALOGUE_INSTANT, definition.id],
    // The catalogue is the same for every caller: cursors are bound to no account.
    '*',
  );
}

function connectorOrNotFound(deps: Deps, id: string): PaymentConnector {
  const connector = deps.connectors.find(id);
  // Production: a sandbox definition is not in the catalogue; the answer says why.
  const sandbox = connector ? null : deps.connectors.sandboxRefusal(id);
  if (sandbox) throw new AppError('not_found', sandbox.message);
  if (!connector) throw new AppError('not_found', unknownDefinitionMessage(deps, id));
  return connector;
}

/**
 * What a client naming a definition that does not exist is told: the id and every valid one (the
 * usable catalogue: production's withheld simulators are not listed).
 */
export function unknownDefinitionMessage(deps: Deps, id: string): string {
  return `unknown payment_service_definition_id ${JSON.stringify(id)}; valid ids: ${deps.connectors
    .definitions()
    .map((d) => d.id)
    .join(', ')}`;
}

export async function getPaymentServiceDefinition(ctx: RequestContext, id: string): Promise<PaymentServiceDefinition> {
  return toPaymentServiceDefinitionResource(connectorOrNotFound(ctx.deps, id).definition);
}

/** For the payment services module: the connector of a definition id, or null when none is registered. */
export function findDefinitionConnector(deps: Deps, id: string): PaymentConnector | null {
  return deps.connectors.find(id);
}

/**
 * Runs a connector call outside the transaction engine (verify, sessions), bounded at 30 s; a
 * technical failure becomes an API error (`apiError`: 504 on a timeout, 502 otherwise).
 */
export async function callConnector<T>(call: () => Promise<T>): Promise<T> {
  return (await boundedConnectorCall(call, apiError)).value;
}

/** Opens a provider session; 400 for a definition without sessions. Called outside any transaction. */
export async function openSession(
  connector: PaymentConnector,
  credentials: Record<string, string>,
  body: CreateSessionBody,
): Promise<CreateSession> {
  const { definition } = connector;
  if (!definition.capabilities.sessions || !connector.createSession) {
    throw badRequest(`The payment service definition ${definition.id} does not support sessions`);
  }
  const createSession = connector.createSession.bind(connector);
  return toCreateSessionResource(await callConnector(() => createSession(credentials, body)));
}

/** A session through a definition alone: no payment service, so no credentials. */
export async function createPaymentServiceDefinitionSession(
  ctx: RequestContext,
  id: string,
  body: CreateSessionBody,
): Promise<CreateSession> {
  return openSession(connectorOrNotFound(ctx.deps, id), {}, body);
}
