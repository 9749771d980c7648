import { sql, type RawBuilder } from 'kysely';

/**
 * The dimensions of the metrics explorer: each module (a breakdown) and each filter is a SQL
 * expression over a `transactions` row. Expressions are constant text chosen from this table by
 * key (never built from input); filter values are bound parameters.
 */

export const MODULES = [
  'authentication_outcome',
  'authorized',
  'country',
  'currency',
  'error_code',
  'instrument_type',
  'is_subsequent_payment',
  'liability_shifted',
  'merchant_initiated',
  'metadata',
  'method',
  'payment_method_bin',
  'payment_method_card_issuer_name',
  'payment_method_card_type',
  'payment_method_country',
  'payment_method_scheme',
  'payment_service',
  'payment_source',
  'raw_response_code',
  'rule_route_transaction',
  'rule_skip_3ds',
  'rule_variant_id',
  'three_d_secure_auth_resp',
  'three_d_secure_eci',
  'three_d_secure_method',
] as const;
export type ModuleKey = (typeof MODULES)[number];

/** Statuses counted as authorized by the published formula (`num_authorized`). */
export const AUTHORIZED_STATUSES = ['authorization_succeeded', 'capture_succeeded'] as const;

const flag = (expression: string) => `CASE WHEN ${expression} THEN '1' ELSE '0' END`;
/** `value`: what to read of the action `a` when not simply `a<path>`. */
const action = (id: string, path: string, value = `a${path}`) =>
  `(SELECT ${value} FROM jsonb_array_elements(actions) a WHERE a->>'id' = '${id}' LIMIT 1)`;
/** Liability moves to the issuer on a completed authentication with a fully authenticated or attempted ECI. */
const LIABILITY_SHIFTED = `CASE WHEN three_d_secure IS NULL THEN NULL WHEN three_d_secure->>'status' = 'complete' AND three_d_secure->'response_data'->>'eci' IN ('01', '02', '05', '06') THEN '1' ELSE '0' END`;

/**
 * Text expression per module. `metadata` is a key-value pair per row (a lateral join, see the
 * repo); the issuer's country comes from the BIN table after grouping by BIN; no issuer names are
 * recorded, so that module has the one key null.
 */
const EXPRESSIONS: Record<Exclude<ModuleKey, 'metadata' | 'payment_method_country'>, string> = {
  authentication_outcome: `three_d_secure->>'status'`,
  authorized: flag(`status IN ('authorization_succeeded', 'capture_succeeded')`),
  country: 'country',
  currency: 'currency',
  error_code: 'error_code',
  instrument_type: 'instrument_type',
  is_subsequent_payment: flag('is_subsequent_payment'),
  liability_shifted: LIABILITY_SHIFTED,
  merchant_initiated: flag('merchant_initiated'),
  method: 'method',
  payment_method_bin: `payment_method->>'bin'`,
  payment_method_card_issuer_name: 'NULL::text',
  payment_method_card_type: `payment_method->>'card_type'`,
  payment_method_scheme: `payment_method->>'scheme'`,
  payment_service: 'payment_service_id::text',
  payment_source: 'payment_source',
  raw_response_code: 'raw_response_code',
  rule_route_transaction: action('route-transaction', `->>'rule_id'`),
  rule_skip_3ds: action('skip-3ds', `->>'rule_id'`),
  // Stored without `selected` when it is the row's payment service (decision 0158): read from the column then.
  rule_variant_id: action(
    'route-transaction',
    `->'outcome'->>'selected'`,
    `CASE WHEN a->'outcome' ? 'eligible' AND NOT a->'outcome' ? 'selected' THEN payment_service_id::text ELSE a->'outcome'->>'selected' END`,
  ),
  three_d_secure_auth_resp: `three_d_secure->'response_data'->>'authentication_response'`,
  three_d_secure_eci: `three_d_secure->'response_data'->>'eci'`,
  three_d_secure_method: `three_d_secure->>'method'`,
};

/** Filters: every module but those computed outside SQL (issuer country) or never recorded (issuer name). */
export const FILTER_KEYS = MODULES.filter(
  (m) => m !== 'payment_method_country' && m !== 'payment_method_card_issuer_name',
);
export type FilterKey = (typeof FILTER_KEYS)[number];

/** The grouping expression of a module (text, possibly null). */
export function moduleExpression(module: Exclude<ModuleKey, 'metadata'>): RawBuilder<string | null> {
  if (module === 'payment_method_country') return sql.raw(EXPRESSIONS.payment_method_bin);
  return sql.raw(EXPRESSIONS[module]);
}

/** The NUL character selects rows where the dimension is null (the published convention). */
export const NULL_VALUE = '\u0000';

/**
 * One filter as a condition: the row's value is one of `values` (`NULL_VALUE` matching null).
 * `metadata` values are JSON objects of one key-value pair, matched by containment (GIN index);
 * BINs (digits, checked by the caller) match as prefixes.
 */
export function filterCondition(key: FilterKey, values: readonly string[]): RawBuilder<boolean> {
  if (key === 'metadata') {
    const pairs = values.map((v) => sql`metadata @> ${v}::jsonb`);
    return sql<boolean>`(${sql.join(pairs, sql` OR `)})`;
  }
  const expression = sql.raw(EXPRESSIONS[key]);
  const named = values.filter((v) => v !== NULL_VALUE);
  const parts: RawBuilder<boolean>[] = [];
  // A BIN matches by prefix: 6 digits find the 8-digit BINs of 16-digit cards (the BIN index serves LIKE 'digits%').
  if (key === 'payment_method_bin') parts.push(...named.map((v) => sql<boolean>`${expression} LIKE ${`${v}%`}`));
  else if (named.length > 0) parts.push(sql<boolean>`${expression} IN (${sql.join(named)})`);
  if (named.length < values.length) parts.push(sql<boolean>`${expression} IS NULL`);
  return sql<boolean>`(${sql.join(parts, sql` OR `)})`;
}
