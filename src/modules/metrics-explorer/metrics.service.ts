import type { RawBuilder } from 'kysely';
import type { RequestContext } from '../../context.ts';
import type { MetricName, MetricsSource } from '../../db/schema-insights.ts';
import type { Executor } from '../../db/transaction.ts';
import { fieldRefusal } from '../../errors/app-error.ts';
import { detectSchemes } from '../../lib/card-schemes.ts';
import { IntervalError, lengthOf, parseInterval, type Interval } from './datetime-range.ts';
import { FILTER_KEYS, filterCondition, NULL_VALUE, type FilterKey, type ModuleKey } from './dimensions.ts';
import {
  addCounts,
  bucketCount,
  bucketOrigin,
  bucketStep,
  delta,
  EMPTY,
  isoSeconds,
  MAX_WINDOW_MS,
  metricValue,
} from './metric-values.ts';
import {
  MODULE_TYPE,
  type Filters,
  type ModuleItem,
  type ModuleQuery,
  type Totals,
  type TotalsQuery,
} from './metrics-explorer.schemas.ts';
import { countsByBucket, countsByModule, type AggregateQuery, type Counts, type GroupCounts } from './metrics.repo.ts';

/** The metrics explorer: totals over time and breakdowns by module (docs/insights.md). */

const BOOLEAN_FILTERS = new Set<FilterKey>([
  'authorized',
  'is_subsequent_payment',
  'merchant_initiated',
  'liability_shifted',
]);

/** Parses `datetime_range` (or another interval field, in the query or the body) into a window of at most a year. */
export function windowOf(
  text: string,
  now: Date,
  pointer = '/datetime_range',
  location: 'query' | 'body' = 'query',
): Interval {
  let window: Interval;
  try {
    window = parseInterval(text, now);
  } catch (error) {
    if (error instanceof IntervalError) throw fieldRefusal(location, pointer, error.message, 'value_error.interval');
    throw error;
  }
  if (lengthOf(window) > MAX_WINDOW_MS)
    throw fieldRefusal(
      location,
      pointer,
      `${text} covers more than 366 days, the longest window a query may cover`,
      'value_error.interval',
    );
  return window;
}

function checkValue(key: FilterKey, value: string, location: 'query' | 'body', pointer: string): void {
  if (value === NULL_VALUE) return;
  if (BOOLEAN_FILTERS.has(key) && value !== '0' && value !== '1')
    throw fieldRefusal(location, pointer, `${key} takes "0" or "1", got ${JSON.stringify(value)}`);
  if (key === 'payment_method_bin' && !/^[0-9]{4,8}$/.test(value))
    throw fieldRefusal(
      location,
      pointer,
      `payment_method_bin takes 4 to 8 digits (a BIN or its start), got ${JSON.stringify(value)}`,
    );
  if (key !== 'metadata') return;
  let pair: unknown;
  try {
    pair = JSON.parse(value);
  } catch {
    pair = null;
  }
  const entries = pair && typeof pair === 'object' && !Array.isArray(pair) ? Object.entries(pair) : [];
  if (entries.length !== 1 || typeof entries[0]![1] !== 'string')
    throw fieldRefusal(
      location,
      pointer,
      `metadata takes a JSON object of one key and a string value, such as {"plan":"gold"}; got ${JSON.stringify(value)}`,
    );
}

/** The filters of a query or preset as SQL conditions, each value checked first. */
export function filterConditions(
  filters: Filters,
  location: 'query' | 'body' = 'query',
  prefix = '',
): RawBuilder<boolean>[] {
  const conditions: RawBuilder<boolean>[] = [];
  for (const key of FILTER_KEYS) {
    const values = filters[key];
    if (!values || values.length === 0) continue;
    values.forEach((value, i) => checkValue(key, value, location, `${prefix}/${key}/${i}`));
    conditions.push(filterCondition(key, values));
  }
  return conditions;
}

/** Volume is counted in one currency, which the query must name. */
function volumeCurrency(metric: MetricName, filters: Filters): string | null {
  const currencies = filters.currency ?? [];
  if (metric !== 'volume') return currencies.length === 1 ? currencies[0]! : null;
  if (currencies.length !== 1 || currencies[0] === NULL_VALUE)
    throw fieldRefusal(
      'query',
      '/currency',
      'The volume metric needs exactly one currency: add currency=USD (or another ISO 4217 code) to the query',
      'value_error.missing',
    );
  return currencies[0]!;
}

async function series(db: Executor, q: AggregateQuery, metric: MetricName) {
  const step = bucketStep(lengthOf(q.window));
  const origin = bucketOrigin(q.window, step.ms);
  const buckets = await countsByBucket(db, q, origin, step.ms);
  const values: Array<number | null> = [];
  let all: Counts = EMPTY;
  for (let i = 0; i < bucketCount(q.window, step.ms); i++) {
    const counts = buckets.get(i) ?? EMPTY;
    values.push(metricValue(metric, counts));
    all = addCounts(all, counts);
  }
  return { series: { first_interval: `${isoSeconds(origin)}/${step.iso}`, values }, value: metricValue(metric, all) };
}

export async function metricTotals(
  ctx: RequestContext,
  source: MetricsSource,
  metric: MetricName,
  query: TotalsQuery,
): Promise<Totals> {
  const window = windowOf(query.datetime_range, new Date());
  const filters = filterConditions(query);
  const base = { merchantAccountId: ctx.merchantAccountId, source, filters, currency: volumeCurrency(metric, query) };
  const previousWindow = { start: new Date(window.start.getTime() - lengthOf(window)), end: window.start };
  const [current, previous] = await Promise.all([
    series(ctx.deps.db, { ...base, window }, metric),
    query.exclude_previous ? null : series(ctx.deps.db, { ...base, window: previousWindow }, metric),
  ]);
  return {
    series: { current: current.series, previous: previous?.series ?? null },
    summary: {
      current: { value: current.value },
      previous: previous ? { value: previous.value } : null,
      delta: previous ? delta(metric, current.value, previous.value) : null,
    },
  };
}

/** The issuer country is known from the BIN table, not stored: BIN groups are merged by country. */
function byIssuerCountry(groups: GroupCounts[]): GroupCounts[] {
  const merged = new Map<string | null, GroupCounts>();
  for (const g of groups) {
    const country = g.key ? detectSchemes(g.key).country : null;
    const seen = merged.get(country);
    merged.set(
      country,
      seen ? { ...addCounts(seen, g), key: country, name: null } : { ...g, key: country, name: null },
    );
  }
  return [...merged.values()];
}

const displayName = (g: GroupCounts, module: ModuleKey) =>
  g.name ?? (g.key === null ? null : BOOLEAN_FILTERS.has(module as FilterKey) ? (g.key === '1' ? 'Yes' : 'No') : g.key);

export async function metricModule(
  ctx: RequestContext,
  source: MetricsSource,
  metric: MetricName,
  module: ModuleKey,
  query: ModuleQuery,
): Promise<ModuleItem[]> {
  const window = windowOf(query.datetime_range, new Date());
  const q = {
    merchantAccountId: ctx.merchantAccountId,
    source,
    window,
    filters: filterConditions(query),
    currency: volumeCurrency(metric, query),
  };
  let groups = await countsByModule(ctx.deps.db, q, module);
  if (module === 'payment_method_country') groups = byIssuerCountry(groups);
  const items = groups.map((g) => ({
    type: MODULE_TYPE,
    key: g.key,
    display_name: displayName(g, module),
    value: metricValue(metric, g),
    metadata: { transactions: g.total, processed: g.authorized + g.declined - g.flowDeclines },
  })) satisfies ModuleItem[];
  // Largest first; a group without a value (no processed transaction) last; ties by key for a stable order.
  items.sort((a, b) => (b.value ?? -Infinity) - (a.value ?? -Infinity) || String(a.key).localeCompare(String(b.key)));
  return items.slice(0, query.limit ?? 10);
}
