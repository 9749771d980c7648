import { Type, type Static, type TSchema } from 'typebox';
import type { PresetRow } from '../../db/schema-insights.ts';
import { DateTime, Nullable, StringEnum, Uuid } from '../../http/schemas/common.ts';
import { FILTER_KEYS, MODULES } from './dimensions.ts';

export const SOURCES = ['authentication', 'authorization', 'monitoring'] as const;
export const METRICS = ['volume', 'transactions', 'auth_rate'] as const;
export const PRESET_TYPE = 'metrics-explorer.preset';
export const MODULE_TYPE = 'metrics-explorer.module';
/** The published limit: ten saved presets per tab (source). */
export const MAX_PRESETS_PER_SOURCE = 10;

const Source = StringEnum(SOURCES, {
  description:
    'What the numbers are about: authorizations, 3DS authentications, or the monitoring view of authorizations',
});
const Metric = StringEnum(METRICS, {
  description: 'volume (authorized amounts in `currency`), transactions (count), auth_rate (authorized ÷ processed)',
});

export const SourceParams = Type.Object({ source: Source });
export const MetricParams = Type.Object({ source: Source, metric: Metric });
export const ModuleParams = Type.Object({
  source: Source,
  metric: Metric,
  module: StringEnum(MODULES, { description: 'The dimension to break the metric down by' }),
});
export const PresetParams = Type.Object({ source: Source, preset_id: Uuid({ description: 'ID of the preset' }) });

const FilterValues = Type.Array(Type.String({ minLength: 1, maxLength: 500 }), {
  maxItems: 50,
  description:
    'Match any; repeat the key. Booleans are "0" or "1"; a NUL character selects rows without a value; metadata is a JSON object of one key-value pair',
});

/** Every filter as an optional repeated query key. */
const filterProperties = Object.fromEntries(FILTER_KEYS.map((key) => [key, Type.Optional(FilterValues)])) as Record<
  (typeof FILTER_KEYS)[number],
  ReturnType<typeof Type.Optional<typeof FilterValues>>
>;

const DatetimeRange = Type.String({
  minLength: 3,
  maxLength: 100,
  description:
    'ISO 8601 interval: start/end, duration/end or start/duration; points are date-times with offset, now, hour_start or hour_end (e.g. P7D/hour_start)',
});

export const TotalsQuery = Type.Object(
  {
    datetime_range: DatetimeRange,
    exclude_previous: Type.Optional(
      Type.Boolean({ default: false, description: 'Leave out the previous period of the same length' }),
    ),
    ...filterProperties,
  },
  { additionalProperties: false },
);
export type TotalsQuery = Static<typeof TotalsQuery>;

export const ModuleQuery = Type.Object(
  {
    datetime_range: DatetimeRange,
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 100,
        default: 10,
        description: 'The largest values first, at most this many',
      }),
    ),
    ...filterProperties,
  },
  { additionalProperties: false },
);
export type ModuleQuery = Static<typeof ModuleQuery>;

/** The filters of a query or a preset: the repeated keys, each a list of strings. */
export type Filters = Partial<Record<(typeof FILTER_KEYS)[number], string[]>>;

const Value = Nullable(Type.Number());
const Series = Type.Object(
  {
    first_interval: Type.String({
      description:
        'The first bucket as an ISO interval, e.g. 2025-03-25T00:00:00Z/PT1H; buckets follow each other in UTC',
    }),
    values: Type.Array(Value, { description: 'One value per bucket; a rate is null where nothing was processed' }),
  },
  { additionalProperties: false, title: 'MetricsExplorerSeries' },
);
const SummaryValue = Type.Object({ value: Value }, { additionalProperties: false });

export const TotalsSchema = Type.Object(
  {
    series: Type.Object({ current: Series, previous: Nullable(Series) }, { additionalProperties: false }),
    summary: Type.Object(
      {
        current: SummaryValue,
        previous: Nullable(SummaryValue),
        delta: Nullable(
          Type.Number({
            description: 'Percentage change for volume and transactions; absolute difference for auth_rate',
          }),
        ),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, title: 'MetricsExplorerTotalResponse' },
);
export type Totals = Static<typeof TotalsSchema>;

export const ModuleItemSchema = Type.Object(
  {
    type: Type.Literal(MODULE_TYPE),
    key: Nullable(Type.String({ description: 'The dimension value; null for rows without one' })),
    display_name: Nullable(Type.String()),
    value: Value,
    metadata: Type.Object(
      {
        transactions: Type.Integer({ description: 'Transactions counted in this group' }),
        processed: Type.Integer({ description: 'Authorized plus declined, less flow declines' }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, title: 'ModuleResponse' },
);
export const ModulesSchema = Type.Array(ModuleItemSchema, { title: 'ModuleResponses' });
export type ModuleItem = Static<typeof ModuleItemSchema>;

const PresetFilters = Type.Object(filterProperties, {
  additionalProperties: false,
  title: 'MetricsExplorerFilters',
  description: 'The filters as the totals query takes them',
});

export const CreatePresetBody = Type.Object(
  { display_name: Type.String({ minLength: 1, maxLength: 255 }), metric: Metric, filters: PresetFilters },
  { additionalProperties: false, title: 'MetricsExplorerPresetCreate' },
);
export type CreatePresetBody = Static<typeof CreatePresetBody>;
export const UpdatePresetBody = Type.Object(
  { display_name: Type.String({ minLength: 1, maxLength: 255 }) },
  { additionalProperties: false, title: 'MetricsExplorerPresetUpdate' },
);
export type UpdatePresetBody = Static<typeof UpdatePresetBody>;

export const PresetSchema = Type.Object(
  {
    type: Type.Literal(PRESET_TYPE),
    id: Uuid(),
    merchant_account_id: Type.String(),
    created_at: DateTime(),
    updated_at: DateTime(),
    display_name: Type.String(),
    source: Source,
    metric: Metric,
    filters: PresetFilters as TSchema,
  },
  { additionalProperties: false, title: 'MetricsExplorerPreset' },
);
export type Preset = Static<typeof PresetSchema>;
export const PresetsSchema = Type.Array(PresetSchema, { title: 'MetricsExplorerPresets' });

export function toPresetResource(row: PresetRow): Preset {
  return {
    type: PRESET_TYPE,
    id: row.id,
    merchant_account_id: row.merchant_account_id,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    display_name: row.display_name,
    source: row.source,
    metric: row.metric,
    filters: row.filters,
  };
}
