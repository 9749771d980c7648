import { withRequestTransaction, type Deps, type RequestContext } from '../../context.ts';
import type { ConnectorDefinition, PaymentConnector } from '../../connectors/connector.ts';
import type { PaymentServiceRow } from '../../db/schema.ts';
import type { Executor } from '../../db/transaction.ts';
import {
  AppError,
  badRequest,
  fieldRefusal,
  invalidField,
  notFound,
  tooEarly,
  type ErrorDetail,
} from '../../errors/app-error.ts';
import { listPage, type ListEnvelope } from '../../http/pagination.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { recordAudit } from '../audit-logs/audit-logs.service.ts';
import {
  findDefinitionConnector,
  openSession,
  unknownDefinitionMessage,
} from '../payment-service-definitions/payment-service-definitions.service.ts';
import type {
  CreateSession,
  CreateSessionBody,
} from '../payment-service-definitions/payment-service-definitions.schemas.ts';
import {
  mergeFields,
  openFields,
  sealFields,
  toFieldMap,
  verifyFields,
  type StoredFields,
} from './payment-service-fields.ts';
import * as repo from './payment-services.repo.ts';
import {
  paymentServiceAuditResource,
  toPaymentServiceResource,
  type CreatePaymentServiceBody,
  type ListPaymentServicesQuery,
  type PaymentService,
  type UpdatePaymentServiceBody,
  type VerifyCredentialsBody,
} from './payment-services.schemas.ts';
import { mergeProfile, planCredentials, simplePatch, StaleCredentials } from './payment-service-update.ts';

export type { PaymentServiceRow };

/** The connector of a definition named in a request body; 400 naming an unknown id. */
function connectorFor(deps: Deps, definitionId: string): PaymentConnector {
  const connector = findDefinitionConnector(deps, definitionId);
  if (!connector)
    throw (
      deps.connectors.sandboxRefusal(definitionId, '/payment_service_definition_id') ??
      fieldRefusal('body', '/payment_service_definition_id', unknownDefinitionMessage(deps, definitionId))
    );
  return connector;
}

/** Accepted currencies and countries must be among the definition's supported ones (when it lists any). */
function checkAccepted(
  definition: ConnectorDefinition,
  currencies: readonly string[] | null | undefined,
  countries: readonly string[] | null | undefined,
): void {
  const details: ErrorDetail[] = [];
  const check = (name: string, values: readonly string[] | null | undefined, supported: readonly string[]) => {
    if (!values || supported.length === 0) return;
    values.forEach((value, index) => {
      if (!supported.includes(value))
        details.push({
          location: 'body',
          pointer: `/${name}/${index}`,
          message: `${value} is not supported by ${definition.id}`,
          type: 'value_error',
        });
    });
  };
  check('accepted_currencies', currencies, definition.supportedCurrencies);
  check('accepted_countries', countries, definition.supportedCountries);
  if (details.length > 0)
    throw new AppError(
      'bad_request',
      `The payment service definition ${definition.id} does not support every accepted currency and country`,
      { details },
    );
}

const json = (value: unknown) => JSON.stringify(value);
const storedColumns = (stored: StoredFields) => ({
  fields: json(stored.fields),
  reporting_fields: json(stored.reporting_fields),
  sealed_fields: json(stored.sealed_fields),
});

/**
 * Runs a write of the account's services, then forgets this process's cached routable services at
 * once (other processes hear of it through the change feed). Also when the write failed: a commit
 * whose answer was lost may still have happened.
 */
export async function changingRoutable<T>(ctx: RequestContext, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } finally {
    ctx.deps.readCaches.paymentServices.invalidate(ctx.merchantAccountId);
  }
}

export async function createPaymentService(
  ctx: RequestContext,
  body: CreatePaymentServiceBody,
): Promise<PaymentService> {
  const connector = connectorFor(ctx.deps, body.payment_service_definition_id);
  const { definition } = connector;
  checkAccepted(definition, body.accepted_currencies, body.accepted_countries);
  const values = {
    field: mergeFields({}, toFieldMap(body.fields, 'field')),
    reporting_field: mergeFields({}, toFieldMap(body.reporting_fields, 'reporting_field')),
  };
  await verifyFields(connector, values.field, values.reporting_field);
  const merchantAccountId = ctx.merchantAccountId;
  const id = uuidv7();
  return changingRoutable(ctx, () =>
    withRequestTransaction(ctx, async (tx) => {
      const stored = await sealFields(tx, ctx.deps, merchantAccountId, id, definition, values);
      const row = await repo.insertPaymentService(tx, {
        merchant_account_id: merchantAccountId,
        id,
        payment_service_definition_id: definition.id,
        method: definition.method,
        display_name: body.display_name,
        position: body.position ?? (await repo.nextPosition(tx, merchantAccountId, definition.method)),
        active: body.active ?? true,
        accepted_currencies: body.accepted_currencies,
        accepted_countries: body.accepted_countries,
        three_d_secure_enabled: body.three_d_secure_enabled ?? false,
        payment_method_tokenization_enabled: body.payment_method_tokenization_enabled ?? false,
        network_tokens_enabled: body.network_tokens_enabled ?? false,
        open_loop: body.open_loop ?? false,
        settlement_reporting_enabled: body.settlement_reporting_enabled ?? false,
        merchant_profile: body.merchant_profile ? json(mergeProfile(null, body.merchant_profile)) : null,
        ...storedColumns(stored),
      });
      await recordAudit(tx, ctx, 'created', paymentServiceAuditResource(row));
      return toPaymentServiceResource(row);
    }),
  );
}

export async function listPaymentServices(
  ctx: RequestContext,
  query: ListPaymentServicesQuery,
): Promise<ListEnvelope<PaymentService>> {
  const filter: repo.PaymentServiceFilter = { method: query.method ?? undefined, deleted: query.deleted };
  return listPage(
    ctx,
    // Every filter value is part of the list name: a cursor of one filter is refused by another.
    `payment-services:${JSON.stringify([filter.method ?? null, filter.deleted])}`,
    query,
    (position, limit) => repo.listPaymentServices(ctx.deps.db, ctx.merchantAccountId, filter, position, limit),
    toPaymentServiceResource,
    (row) => [row.created_at, row.id],
  );
}

/** Deleted services stay readable (with `is_deleted`): transactions keep naming them. */
export async function getPaymentService(ctx: RequestContext, id: string): Promise<PaymentService> {
  const row = await repo.findPaymentService(ctx.deps.db, ctx.merchantAccountId, id);
  if (!row) throw notFound('payment service', id);
  return toPaymentServiceResource(row);
}

async function usableOrNotFound(db: Executor, merchantAccountId: string, id: string): Promise<PaymentServiceRow> {
  const row = await findUsablePaymentService(db, merchantAccountId, id);
  if (!row) throw notFound('payment service', id);
  return row;
}

/** The connector of a stored service; 400 when its definition is no longer registered. */
function connectorOfRow(deps: Deps, row: PaymentServiceRow): PaymentConnector {
  const connector = findDefinitionConnector(deps, row.payment_service_definition_id);
  if (!connector)
    throw (
      deps.connectors.sandboxRefusal(row.payment_service_definition_id) ??
      badRequest(
        `The payment service definition ${row.payment_service_definition_id} of this payment service is no longer available`,
      )
    );
  return connector;
}

/** One attempt: validate and verify outside the transaction, then write if the credentials did not change meanwhile. */
async function updateOnce(ctx: RequestContext, id: string, body: UpdatePaymentServiceBody): Promise<PaymentService> {
  const merchantAccountId = ctx.merchantAccountId;
  const current = await usableOrNotFound(ctx.deps.db, merchantAccountId, id);
  const connector = connectorOfRow(ctx.deps, current);
  checkAccepted(connector.definition, body.accepted_currencies, body.accepted_countries);
  const plan = await planCredentials(ctx.deps, connector, current, body);
  return changingRoutable(ctx, () =>
    withRequestTransaction(ctx, async (tx) => {
      const locked = await repo.findPaymentService(tx, merchantAccountId, id, { forUpdate: true });
      if (!locked || locked.is_deleted) throw notFound('payment service', id);
      const patch = simplePatch(body, locked);
      if (plan) {
        if (plan.basis(locked) !== plan.basis(current)) throw new StaleCredentials();
        Object.assign(
          patch,
          storedColumns(await sealFields(tx, ctx.deps, merchantAccountId, id, connector.definition, plan.values)),
        );
      }
      const row = await repo.updatePaymentService(tx, merchantAccountId, id, patch);
      await recordAudit(tx, ctx, 'updated', paymentServiceAuditResource(row));
      return toPaymentServiceResource(row);
    }),
  );
}

export async function updatePaymentService(
  ctx: RequestContext,
  id: string,
  body: UpdatePaymentServiceBody,
): Promise<PaymentService> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await updateOnce(ctx, id, body);
    } catch (error) {
      if (!(error instanceof StaleCredentials)) throw error;
      if (attempt >= 3)
        throw tooEarly('The payment service fields are being changed by another request; retry shortly');
    }
  }
}

/** Soft delete: the row stays (transactions name it) but its secret values are destroyed. */
export async function deletePaymentService(ctx: RequestContext, id: string): Promise<void> {
  const merchantAccountId = ctx.merchantAccountId;
  await changingRoutable(ctx, () =>
    withRequestTransaction(ctx, async (tx) => {
      const locked = await repo.findPaymentService(tx, merchantAccountId, id, { forUpdate: true });
      if (!locked || locked.is_deleted) throw notFound('payment service', id);
      const row = await repo.updatePaymentService(tx, merchantAccountId, id, {
        is_deleted: true,
        sealed_fields: json({}),
      });
      await recordAudit(tx, ctx, 'deleted', paymentServiceAuditResource(row));
    }),
  );
}

/** Verifies without storing; with `payment_service_id`, the fields are merged over the stored ones first. */
export async function verifyPaymentServiceCredentials(
  ctx: RequestContext,
  body: VerifyCredentialsBody,
): Promise<Record<string, never>> {
  const connector = connectorFor(ctx.deps, body.payment_service_definition_id);
  let stored: Record<string, string> = {};
  if (body.payment_service_id) {
    const row = await usableOrNotFound(ctx.deps.db, ctx.merchantAccountId, body.payment_service_id);
    if (row.payment_service_definition_id !== connector.definition.id) {
      throw invalidField(
        'body',
        '/payment_service_id',
        `The payment service ${row.id} is configured for ${row.payment_service_definition_id}, not ${connector.definition.id}`,
      );
    }
    stored = await openFields(ctx.deps.db, ctx.deps, row, 'field');
  }
  await verifyFields(connector, mergeFields(stored, toFieldMap(body.fields, 'field')), null);
  return {};
}

export async function createPaymentServiceSession(
  ctx: RequestContext,
  id: string,
  body: CreateSessionBody,
): Promise<CreateSession> {
  const row = await usableOrNotFound(ctx.deps.db, ctx.merchantAccountId, id);
  const connector = connectorOfRow(ctx.deps, row);
  return openSession(connector, await credentialsOf(ctx.deps.db, ctx.deps, row), body);
}

/**
 * Active, not deleted services of the merchant account, ordered by position then created_at
 * (routing). Read through the process's cache when `db` is the pool; a transaction (`db` is not
 * `deps.db`) reads the database, so it sees its own snapshot and writes.
 */
export async function listRoutablePaymentServices(
  db: Executor,
  deps: Deps,
  merchantAccountId: string,
): Promise<readonly PaymentServiceRow[]> {
  if (db !== deps.db) return repo.listRoutable(db, merchantAccountId);
  // Frozen all the way down; the row type stays the plain one so that routing keeps its
  // signatures: a write to a shared row throws at run time (modules are strict mode).
  return deps.readCaches.paymentServices.get(merchantAccountId, () =>
    repo.listRoutable(db, merchantAccountId),
  ) as Promise<readonly PaymentServiceRow[]>;
}

/** One service (not deleted) or null. */
export async function findUsablePaymentService(
  db: Executor,
  merchantAccountId: string,
  id: string,
): Promise<PaymentServiceRow | null> {
  const row = await repo.findPaymentService(db, merchantAccountId, id);
  return row && !row.is_deleted ? row : null;
}

/**
 * One service (not deleted) or null, for a follow-up call on what it made (connectorOfTransaction:
 * capture, void, refund, increment, reconciliation; a provider's inbound webhook; token and payout
 * reconciliation). An active one comes from the process's cache
 * of routable services when `db` is the pool (told of every committed change, src/db/read-cache.ts);
 * an inactive one, which still serves the transactions it made, and every read inside a
 * transaction come from the database.
 */
export async function findUsablePaymentServiceCached(
  db: Executor,
  deps: Deps,
  merchantAccountId: string,
  id: string,
): Promise<PaymentServiceRow | null> {
  if (db === deps.db) {
    const cached = (await listRoutablePaymentServices(db, deps, merchantAccountId)).find(
      (service) => service.id === id,
    );
    if (cached) return cached;
  }
  return findUsablePaymentService(db, merchantAccountId, id);
}

/** One service of the merchant account, deleted or not, or null (rules check what they name). */
export async function findPaymentServiceRecord(
  db: Executor,
  merchantAccountId: string,
  id: string,
): Promise<PaymentServiceRow | null> {
  return (await repo.findPaymentService(db, merchantAccountId, id)) ?? null;
}

/** Decrypted credentials (secrets included) for one connector call. */
export async function credentialsOf(db: Executor, deps: Deps, row: PaymentServiceRow): Promise<Record<string, string>> {
  return openFields(db, deps, row, 'field');
}

/** How many sandbox services the start-up warning names (the count says whether there are more). */
const SANDBOX_WARNING_LIMIT = 100;

/**
 * Start-up of a production server: the payment services still made with a sandbox connector (from
 * before the switch to production). The server starts and refuses to use them (every use names
 * the real definitions); this warns the operator once, naming them (docs/production.md).
 */
export async function warnOfSandboxPaymentServices(
  deps: Deps,
  log: { warn(obj: object, msg?: string): void },
): Promise<number> {
  const rows = await repo.listServicesOfDefinitions(deps.db, deps.connectors.withheldIds(), SANDBOX_WARNING_LIMIT + 1);
  if (rows.length === 0) return 0;
  const named = rows.slice(0, SANDBOX_WARNING_LIMIT).map((row) => ({
    merchant_account_id: row.merchant_account_id,
    payment_service_id: row.id,
    payment_service_definition_id: row.payment_service_definition_id,
    display_name: row.display_name,
  }));
  log.warn(
    { payment_services: named, more: rows.length > SANDBOX_WARNING_LIMIT },
    `ENVIRONMENT=production and the database holds ${rows.length > SANDBOX_WARNING_LIMIT ? `more than ${SANDBOX_WARNING_LIMIT}` : rows.length} payment service(s) of sandbox connectors; they are refused (not routed to, not called): delete them, or replace them with a real connector's`,
  );
  return rows.length;
}

/** Decrypted credentials and reporting credentials together (a reporting field wins a key both have): what a connector's settlement reports are read with. */
export async function reportingCredentialsOf(
  db: Executor,
  deps: Deps,
  row: PaymentServiceRow,
): Promise<Record<string, string>> {
  return { ...(await openFields(db, deps, row, 'field')), ...(await openFields(db, deps, row, 'reporting_field')) };
}

/**
 * Instance-wide: payment services (not deleted) of the given definitions whose settlement reports
 * are ingested (`settlement_reporting_enabled`), in (merchant account, id) order after `after`, a
 * batch at a time (the daily settlement ingestion schedule).
 */
export async function listSettlementReportingServices(
  db: Executor,
  definitionIds: string[],
  after: { merchantAccountId: string; id: string } | null,
  limit: number,
): Promise<PaymentServiceRow[]> {
  return repo.listSettlementReportingOfDefinitions(db, definitionIds, after, limit);
}
