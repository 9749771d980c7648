import { withRequestTransaction, type RequestContext } from '../../context.ts';
import { AppError, duplicateRecord, notFound } from '../../errors/app-error.ts';
import { isUniqueViolation } from '../../errors/pg-errors.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { recordAudit } from '../audit-logs/audit-logs.service.ts';
import { checkedFields, sealAntiFraudFields } from './anti-fraud-service-fields.ts';
import * as repo from './anti-fraud-services.repo.ts';
import {
  antiFraudAuditResource,
  toAntiFraudServiceResource,
  type AntiFraudService,
  type CreateAntiFraudServiceBody,
} from './anti-fraud-services.schemas.ts';

/** The definition of a create: a real service (the sandbox one needs no configuring and production withholds it). */
function definitionOf(ctx: RequestContext, id: string) {
  const connector = ctx.deps.antiFraud.find(id);
  if (!connector || ctx.deps.antiFraud.isSandbox(id))
    throw new AppError(
      'bad_request',
      `${id} is not an anti-fraud service definition (one of ${ctx.deps.antiFraud
        .definitions()
        .filter((d) => !ctx.deps.antiFraud.isSandbox(d.id))
        .map((d) => d.id)
        .join(', ')})`,
      {
        details: [
          {
            location: 'body',
            pointer: '/anti_fraud_service_definition_id',
            message: 'unknown definition',
            type: 'value_error',
          },
        ],
      },
    );
  return connector.definition;
}

/**
 * Runs a write of the account's services, then forgets this process's cached active service at
 * once (other processes hear of it through the change feed); also when the write failed, as a
 * commit whose answer was lost may still have happened.
 */
async function changing<T>(ctx: RequestContext, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } finally {
    ctx.deps.readCaches.antiFraudServices.invalidate(ctx.merchantAccountId);
  }
}

export async function createAntiFraudService(
  ctx: RequestContext,
  body: CreateAntiFraudServiceBody,
): Promise<AntiFraudService> {
  return changing(ctx, () => create(ctx, body));
}

async function create(ctx: RequestContext, body: CreateAntiFraudServiceBody): Promise<AntiFraudService> {
  const definition = definitionOf(ctx, body.anti_fraud_service_definition_id);
  const values = checkedFields(definition, body.fields);
  const id = uuidv7();
  try {
    return await withRequestTransaction(ctx, async (tx) => {
      const stored = await sealAntiFraudFields(tx, ctx.deps, ctx.merchantAccountId, id, definition, values);
      const row = await repo.insertAntiFraudService(tx, {
        merchant_account_id: ctx.merchantAccountId,
        id,
        anti_fraud_service_definition_id: definition.id,
        display_name: body.display_name,
        active: body.active ?? true,
        fields: JSON.stringify(stored.fields),
        sealed_fields: JSON.stringify(stored.sealed_fields),
      });
      await recordAudit(tx, ctx, 'created', antiFraudAuditResource(row));
      return toAntiFraudServiceResource(row);
    });
  } catch (error) {
    if (!isUniqueViolation(error, repo.ACTIVE_INDEX)) throw error;
    const active = await repo.findActiveAntiFraudService(ctx.deps.db, ctx.merchantAccountId);
    throw duplicateRecord(
      active?.id ?? id,
      `The merchant account already has an active anti-fraud service${active ? ` (${active.id})` : ''}: delete it first`,
    );
  }
}

export async function getAntiFraudService(ctx: RequestContext, id: string): Promise<AntiFraudService> {
  const row = await repo.findAntiFraudService(ctx.deps.db, ctx.merchantAccountId, id);
  if (!row) throw notFound('anti-fraud-service', id);
  return toAntiFraudServiceResource(row);
}

export async function deleteAntiFraudService(ctx: RequestContext, id: string): Promise<void> {
  await changing(ctx, () => remove(ctx, id));
}

async function remove(ctx: RequestContext, id: string): Promise<void> {
  await withRequestTransaction(ctx, async (tx) => {
    const row = await repo.findAntiFraudService(tx, ctx.merchantAccountId, id, { forUpdate: true });
    if (!row) throw notFound('anti-fraud-service', id);
    await repo.deleteAntiFraudService(tx, ctx.merchantAccountId, id);
    await recordAudit(tx, ctx, 'deleted', antiFraudAuditResource(row));
  });
}
