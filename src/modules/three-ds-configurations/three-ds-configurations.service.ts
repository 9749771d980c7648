import { withRequestTransaction, type RequestContext } from '../../context.ts';
import type { ThreeDsConfigurationRow } from '../../db/schema.ts';
import type { Executor } from '../../db/transaction.ts';
import { AppError, notFound } from '../../errors/app-error.ts';
import { isUniqueViolation } from '../../errors/pg-errors.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { recordAudit } from '../audit-logs/audit-logs.service.ts';
import { getMerchantAccount } from '../merchant-accounts/merchant-accounts.service.ts';
import * as repo from './three-ds-configurations.repo.ts';
import {
  THREE_DS_CONFIGURATION_TYPE,
  toThreeDsConfigurationResource,
  type CreateThreeDsConfigurationBody,
  type ListThreeDsConfigurationsQuery,
  type ThreeDsConfiguration,
  type UpdateThreeDsConfigurationBody,
} from './three-ds-configurations.schemas.ts';

type Key = { scheme: string; currency: string | null };

/**
 * The account in the path must exist and be within the credential's reach. An account out of
 * reach answers the same 404 as an unknown one, so a limited credential cannot probe accounts.
 */
async function checkAccount(ctx: RequestContext, merchantAccountId: string): Promise<void> {
  await getMerchantAccount(ctx, merchantAccountId);
}

function duplicate(key: Key, existingId: string | undefined): AppError {
  const currency = key.currency === null ? 'all currencies' : `currency ${key.currency}`;
  return new AppError(
    'duplicate_record',
    `A 3DS configuration for scheme ${key.scheme} and ${currency} already exists on this merchant account`,
    {
      ...(existingId === undefined ? {} : { resourceId: existingId }),
    },
  );
}

function audited(row: ThreeDsConfigurationRow) {
  return { type: THREE_DS_CONFIGURATION_TYPE, id: row.id, name: row.merchant_name };
}

export async function createThreeDsConfiguration(
  ctx: RequestContext,
  merchantAccountId: string,
  body: CreateThreeDsConfigurationBody,
): Promise<ThreeDsConfiguration> {
  await checkAccount(ctx, merchantAccountId);
  const key: Key = { scheme: body.scheme, currency: body.currency ?? null };
  return withRequestTransaction(ctx, async (tx) => {
    const row = await repo.insertThreeDsConfiguration(tx, {
      ...body,
      merchant_account_id: merchantAccountId,
      id: uuidv7(),
      currency: key.currency,
      metadata: JSON.stringify(body.metadata),
    });
    if (!row) throw duplicate(key, (await repo.findThreeDsConfigurationByKey(tx, merchantAccountId, key))?.id);
    await recordAudit(tx, ctx, 'created', audited(row), merchantAccountId);
    return toThreeDsConfigurationResource(row);
  });
}

export async function listThreeDsConfigurations(
  ctx: RequestContext,
  merchantAccountId: string,
  query: ListThreeDsConfigurationsQuery,
): Promise<{ items: ThreeDsConfiguration[] }> {
  await checkAccount(ctx, merchantAccountId);
  const rows = await repo.listThreeDsConfigurations(ctx.deps.db, merchantAccountId, {
    currency: query.currency ?? undefined,
  });
  return { items: rows.map(toThreeDsConfigurationResource) };
}

/** Fields the resource requires: null cannot mean "clear" for them (decision 0028). */
const REQUIRED_FIELDS = [
  'merchant_acquirer_bin',
  'merchant_acquirer_id',
  'merchant_name',
  'merchant_country_code',
  'merchant_category_code',
  'merchant_url',
  'scheme',
  'metadata',
] as const;

function refuseNulls(body: UpdateThreeDsConfigurationBody): void {
  const nulled = REQUIRED_FIELDS.filter((field) => body[field] === null);
  if (nulled.length === 0) return;
  throw new AppError(
    'bad_request',
    `${nulled.join(', ')} cannot be null: a 3DS configuration requires ${nulled.length === 1 ? 'it' : 'them'}; leave a field out to keep its value`,
    {
      details: nulled.map((field) => ({
        location: 'body' as const,
        pointer: `/${field}`,
        message: 'Required on a 3DS configuration; cannot be null',
        type: 'value_error',
      })),
    },
  );
}

function toPatch(body: UpdateThreeDsConfigurationBody): repo.ThreeDsConfigurationPatch {
  const { metadata, ...fields } = body;
  // Only the fields sent: an absent field keeps the stored value, a null currency clears it.
  const patch: repo.ThreeDsConfigurationPatch = Object.fromEntries(
    Object.entries(fields).filter(([, value]) => value !== undefined),
  );
  if (metadata) patch.metadata = JSON.stringify(metadata);
  return patch;
}

/** Partial update: a field not sent keeps its value; `currency: null` makes the configuration apply to every currency. */
export async function editThreeDsConfiguration(
  ctx: RequestContext,
  merchantAccountId: string,
  id: string,
  body: UpdateThreeDsConfigurationBody,
): Promise<ThreeDsConfiguration> {
  await checkAccount(ctx, merchantAccountId);
  refuseNulls(body);
  const patch = toPatch(body);
  // The (scheme, currency) the row will have, known once the row is read.
  const target: { key?: Key } = {};
  try {
    return await withRequestTransaction(ctx, async (tx) => {
      const current = await repo.findThreeDsConfiguration(tx, merchantAccountId, id, { forUpdate: true });
      if (!current) throw notFound('3DS configuration', id);
      const key = {
        scheme: patch.scheme ?? current.scheme,
        currency: patch.currency === undefined ? current.currency : patch.currency,
      };
      target.key = key;
      if (key.scheme !== current.scheme || key.currency !== current.currency) {
        const other = await repo.findThreeDsConfigurationByKey(tx, merchantAccountId, key, id);
        if (other) throw duplicate(key, other.id);
      }
      const row = (await repo.updateThreeDsConfiguration(tx, merchantAccountId, id, patch))!;
      await recordAudit(tx, ctx, 'updated', audited(row), merchantAccountId);
      return toThreeDsConfigurationResource(row);
    });
  } catch (error) {
    // A concurrent write took the same scheme and currency between the check and the update.
    const key = target.key;
    if (key === undefined || !isUniqueViolation(error, repo.SCHEME_CURRENCY_INDEX)) throw error;
    throw duplicate(key, (await repo.findThreeDsConfigurationByKey(ctx.deps.db, merchantAccountId, key, id))?.id);
  }
}

export async function deleteThreeDsConfiguration(
  ctx: RequestContext,
  merchantAccountId: string,
  id: string,
): Promise<void> {
  await checkAccount(ctx, merchantAccountId);
  await withRequestTransaction(ctx, async (tx) => {
    const current = await repo.findThreeDsConfiguration(tx, merchantAccountId, id, { forUpdate: true });
    if (!current) throw notFound('3DS configuration', id);
    await repo.deleteThreeDsConfiguration(tx, merchantAccountId, id);
    await recordAudit(tx, ctx, 'deleted', audited(current), merchantAccountId);
  });
}

/**
 * The configuration a payment of `scheme` in `currency` uses: the one for that currency, else the
 * scheme's configuration for every currency (null currency); null when neither exists. For other
 * modules (the checkout session acquirer data), outside any transaction.
 */
export async function threeDsConfigurationFor(
  db: Executor,
  merchantAccountId: string,
  scheme: string,
  currency: string | null,
): Promise<ThreeDsConfigurationRow | null> {
  const exact =
    currency === null
      ? undefined
      : await repo.findThreeDsConfigurationByKey(db, merchantAccountId, { scheme, currency });
  return exact ?? (await repo.findThreeDsConfigurationByKey(db, merchantAccountId, { scheme, currency: null })) ?? null;
}
