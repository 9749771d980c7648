import { withRequestTransaction, type RequestContext } from '../../context.ts';
import type { MetricsSource, PresetRow } from '../../db/schema-insights.ts';
import { fieldRefusal, notFound } from '../../errors/app-error.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { recordAudit } from '../audit-logs/audit-logs.service.ts';
import { filterConditions } from './metrics.service.ts';
import {
  MAX_PRESETS_PER_SOURCE,
  PRESET_TYPE,
  toPresetResource,
  type CreatePresetBody,
  type Preset,
  type UpdatePresetBody,
} from './metrics-explorer.schemas.ts';
import * as repo from './presets.repo.ts';

/** Saved views of the metrics explorer: at most ten per source, renamed only (the published model). */

const audited = (row: PresetRow) => ({ type: PRESET_TYPE, id: row.id, name: `${row.source}: ${row.display_name}` });

export async function listPresets(ctx: RequestContext, source: MetricsSource): Promise<Preset[]> {
  return (await repo.listPresets(ctx.deps.db, ctx.merchantAccountId, source)).map(toPresetResource);
}

export async function createPreset(
  ctx: RequestContext,
  source: MetricsSource,
  body: CreatePresetBody,
): Promise<Preset> {
  // The filters are checked as a query would check them, so a saved view always runs.
  filterConditions(body.filters, 'body', '/filters');
  return withRequestTransaction(ctx, async (tx) => {
    await repo.lockPresets(tx, ctx.merchantAccountId, source);
    if ((await repo.countPresets(tx, ctx.merchantAccountId, source)) >= MAX_PRESETS_PER_SOURCE) {
      throw fieldRefusal(
        'path',
        '/source',
        `The ${source} tab already holds ${MAX_PRESETS_PER_SOURCE} presets, the most it may hold; delete one first`,
        'too_many_presets',
      );
    }
    const row = await repo.insertPreset(tx, {
      merchant_account_id: ctx.merchantAccountId,
      id: uuidv7(),
      source,
      display_name: body.display_name,
      metric: body.metric,
      filters: JSON.stringify(body.filters),
    });
    await recordAudit(tx, ctx, 'created', audited(row));
    return toPresetResource(row);
  });
}

export async function updatePreset(
  ctx: RequestContext,
  source: MetricsSource,
  id: string,
  body: UpdatePresetBody,
): Promise<Preset> {
  return withRequestTransaction(ctx, async (tx) => {
    const row = await repo.renamePreset(tx, ctx.merchantAccountId, source, id, body.display_name, new Date());
    if (!row) throw notFound('metrics explorer preset', id);
    await recordAudit(tx, ctx, 'updated', audited(row));
    return toPresetResource(row);
  });
}

export async function deletePreset(ctx: RequestContext, source: MetricsSource, id: string): Promise<void> {
  await withRequestTransaction(ctx, async (tx) => {
    const row = await repo.deletePreset(tx, ctx.merchantAccountId, source, id);
    if (!row) throw notFound('metrics explorer preset', id);
    await recordAudit(tx, ctx, 'deleted', audited(row));
  });
}
