import { withRequestTransaction, type RequestContext } from '../../context.ts';
import type { VaultForwardConfigRow } from '../../db/schema-vault-forward.ts';
import type { Executor, Tx } from '../../db/transaction.ts';
import { AppError, duplicateRecord, fieldRefusal, notFound, type ErrorDetail } from '../../errors/app-error.ts';
import { listPage, type ListEnvelope } from '../../http/pagination.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { recordAudit } from '../audit-logs/audit-logs.service.ts';
import { creatorOf } from '../webhook-subscriptions/webhook-subscriptions.service.ts';
import { CUSTOM_DEFINITION_ID, FORWARD_DEFINITIONS, findDefinition } from './definitions.ts';
import { hostPatternProblem, patternWithin } from './host-rules.ts';
import * as repo from './vault-forward-configs.repo.ts';
import {
  CONFIG_TYPE,
  DEFINITION_IDS,
  hostsOf,
  toConfigResource,
  toDefinitionResource,
  type Config,
  type CreateConfigBody,
  type Definition,
  type ListConfigsQuery,
} from './vault-forward-configs.schemas.ts';

const RESOURCE = 'vault forward config';

export const configAuditResource = (row: VaultForwardConfigRow) => ({
  type: CONFIG_TYPE,
  id: row.id,
  name: `${row.display_name} (${row.definition_id})`,
});

export function listDefinitions(): { items: Definition[] } {
  return { items: FORWARD_DEFINITIONS.map(toDefinitionResource) };
}

/**
 * The hosts of a `custom` config, checked: host names only (IP addresses and local names in the
 * permissive sandbox only) and, in production, within VAULT_FORWARD_ALLOWED_HOSTS.
 */
function customHosts(ctx: RequestContext, hosts: readonly string[] | undefined): string[] {
  if (!hosts)
    throw fieldRefusal(
      'body',
      '/hosts',
      'hosts is required for the custom definition: list the hosts this config allows (e.g. api.example.com or *.example.com)',
      'missing',
    );
  const { config } = ctx.deps;
  const production = config.environment === 'production';
  const details: ErrorDetail[] = [];
  hosts.forEach((raw, index) => {
    const host = raw.toLowerCase();
    let problem = hostPatternProblem(host, production ? 'none' : config.vaultForwardAllowPrivateUrls);
    if (!problem && production && !config.vaultForwardAllowedHosts.some((ceiling) => patternWithin(host, ceiling))) {
      problem = 'is not within VAULT_FORWARD_ALLOWED_HOSTS, the hosts this instance may forward to';
    }
    if (problem)
      details.push({ location: 'body', pointer: `/hosts/${index}`, message: `${raw} ${problem}`, type: 'value_error' });
  });
  if (details.length > 0)
    throw new AppError('bad_request', `The hosts are not valid: ${details.map((d) => d.message).join('; ')}`, {
      details,
    });
  return [...new Set(hosts.map((h) => h.toLowerCase()))];
}

async function duplicateOf(db: Executor, ctx: RequestContext, definitionId: string): Promise<AppError> {
  const existing = await repo.findConfigByDefinition(db, ctx.merchantAccountId, definitionId);
  const message = `Only 1 configuration may exist at a time for a given definition: config ${existing?.id ?? ''} already uses ${definitionId}`;
  return existing ? duplicateRecord(existing.id, message) : new AppError('duplicate_record', message);
}

export async function createConfig(ctx: RequestContext, body: CreateConfigBody): Promise<Config> {
  const definition = findDefinition(body.definition_id);
  if (!definition)
    throw fieldRefusal(
      'body',
      '/definition_id',
      `Unknown definition_id ${body.definition_id}: one of ${DEFINITION_IDS.join(', ')} (GET /vault-forward/definitions)`,
    );
  const custom = definition.id === CUSTOM_DEFINITION_ID;
  if (!custom && body.hosts)
    throw fieldRefusal(
      'body',
      '/hosts',
      `hosts may be given for the custom definition only: ${definition.id} allows its own hosts (${definition.hosts.join(', ')})`,
    );
  const hosts = custom ? customHosts(ctx, body.hosts) : null;
  return withRequestTransaction(ctx, async (tx) => {
    const row = await repo.insertConfig(tx, {
      merchant_account_id: ctx.merchantAccountId,
      id: uuidv7(),
      definition_id: definition.id,
      display_name: body.display_name ?? definition.display_name,
      hosts: hosts ? JSON.stringify(hosts) : null,
      creator: creatorOf(ctx),
    });
    // A second config of the definition, created now or by a concurrent request (the unique index).
    if (!row) throw await duplicateOf(tx, ctx, definition.id);
    await recordAudit(tx, ctx, 'created', configAuditResource(row));
    return toConfigResource(row, []);
  });
}

export async function listConfigs(ctx: RequestContext, query: ListConfigsQuery): Promise<ListEnvelope<Config>> {
  const page = await listPage(
    ctx,
    'vault-forward-configs',
    query,
    (position, limit) => repo.listConfigs(ctx.deps.db, ctx.merchantAccountId, position, limit),
    (row) => row,
    (row) => [row.created_at, row.id],
  );
  const authentications = await repo.authenticationsOf(
    ctx.deps.db,
    ctx.merchantAccountId,
    page.items.map((row) => row.id),
  );
  return {
    ...page,
    items: page.items.map((row) =>
      toConfigResource(
        row,
        authentications.filter((a) => a.config_id === row.id),
      ),
    ),
  };
}

/** The config, or 404 (another merchant account's config is not found either). */
export async function configOrNotFound(
  db: Executor,
  ctx: RequestContext,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<VaultForwardConfigRow> {
  const row = await repo.findConfig(db, ctx.merchantAccountId, id, options);
  if (!row) throw notFound(RESOURCE, id);
  return row;
}

export async function getConfig(ctx: RequestContext, id: string): Promise<Config> {
  const row = await configOrNotFound(ctx.deps.db, ctx, id);
  return toConfigResource(row, await repo.authenticationsOf(ctx.deps.db, ctx.merchantAccountId, [id]));
}

/** Deletes the config with its authentication methods (their sealed secrets go with the rows); one audit entry each. */
export async function deleteConfig(ctx: RequestContext, id: string): Promise<void> {
  await withRequestTransaction(ctx, async (tx: Tx) => {
    const row = await configOrNotFound(tx, ctx, id, { forUpdate: true });
    const authentications = await repo.authenticationsOf(tx, ctx.merchantAccountId, [id]);
    await repo.deleteConfig(tx, ctx.merchantAccountId, id);
    for (const a of authentications)
      await recordAudit(tx, ctx, 'deleted', {
        type: 'vault-forward-config-authentication',
        id: a.id,
        name: `${a.display_name} (${a.kind})`,
      });
    await recordAudit(tx, ctx, 'deleted', configAuditResource(row));
  });
}

/** Every host the merchant account's configs allow: its production allow-list. */
export async function allowedHostsOf(db: Executor, merchantAccountId: string): Promise<string[]> {
  return (await repo.allConfigs(db, merchantAccountId)).flatMap(hostsOf);
}
