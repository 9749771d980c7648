import type { FlowConditionJson, FlowName } from '../../db/schema-flow-rules.ts';
import { CARD_SCHEMES } from '../../lib/card-schemes.ts';
import { isCountry } from '../../lib/countries.ts';
import { isCurrency } from '../../lib/currencies.ts';
import { PAYMENT_SOURCES } from '../transactions/transaction.schema.ts';
import { velocityMiss, velocityProblem, type VelocityLookup, VELOCITY_OPERATORS } from './velocity-condition.ts';

/**
 * Rule conditions: what each field accepts and how it is matched against what a transaction
 * knows. Pure (no database), so the cache, the engine and the dry run share it.
 */

export const CONDITION_FIELDS = [
  'amount',
  'currency',
  'country',
  'payment_method',
  'card_scheme',
  'bin',
  'issuer_country',
  'payment_source',
  'merchant_initiated',
  'is_subsequent_payment',
  'metadata',
  'buyer_external_identifier',
  'anti_fraud_decision',
  'three_d_secure_status',
  'velocity',
] as const;
export type ConditionField = (typeof CONDITION_FIELDS)[number];

export const CONDITION_OPERATORS = [
  'equals',
  'one_of',
  'not_one_of',
  'range',
  'prefix',
  ...VELOCITY_OPERATORS,
] as const;
export type ConditionOperator = (typeof CONDITION_OPERATORS)[number];

export const ANTI_FRAUD_DECISIONS = ['accept', 'error', 'exception', 'reject', 'review', 'skipped', 'pending'] as const;
export const THREE_DS_STATUSES = ['setup_error', 'error', 'declined', 'cancelled', 'complete'] as const;

/** What a transaction (or a checkout asking for payment options) knows when the rules run. */
export interface FlowFacts {
  /** Null when a checkout asks for payment options without an amount or currency. */
  amount: number | null;
  currency: string | null;
  country: string | null;
  /** `card`, or the redirect method (`paypal`, ...); null before a method is chosen (checkout). */
  method: string | null;
  scheme: string | null;
  /** The first 6 or 8 digits of the card. */
  bin: string | null;
  issuerCountry: string | null;
  paymentSource: string | null;
  merchantInitiated: boolean;
  isSubsequentPayment: boolean;
  metadata: Record<string, string> | null;
  buyerExternalIdentifier: string | null;
  antiFraudDecision: string | null;
  threeDSecureStatus: string | null;
  /** The counts `velocity` conditions compare (read before the rules run); absent: no key is known. */
  velocity?: VelocityLookup | null;
}

type ValueKind =
  | 'currency'
  | 'country'
  | 'method'
  | 'scheme'
  | 'digits'
  | 'text'
  | 'boolean'
  | 'payment_source'
  | 'anti_fraud'
  | 'three_ds'
  | 'velocity';

interface FieldSpec {
  operators: readonly ConditionOperator[];
  kind: ValueKind;
  /** Flows whose facts hold this field (the checkout knows no card yet). */
  flows: readonly FlowName[];
}

const LISTS = ['equals', 'one_of', 'not_one_of'] as const;
const TRANSACTION_FLOWS: readonly FlowName[] = ['card-transaction', 'non-card-transaction', 'redirect-transaction'];
const ALL_FLOWS: readonly FlowName[] = ['checkout', ...TRANSACTION_FLOWS];
const CARD_FLOW: readonly FlowName[] = ['card-transaction'];

export const FIELD_SPECS: Record<ConditionField, FieldSpec> = {
  amount: { operators: ['range'], kind: 'digits', flows: ALL_FLOWS },
  currency: { operators: LISTS, kind: 'currency', flows: ALL_FLOWS },
  country: { operators: LISTS, kind: 'country', flows: ALL_FLOWS },
  payment_method: { operators: LISTS, kind: 'method', flows: TRANSACTION_FLOWS },
  card_scheme: { operators: LISTS, kind: 'scheme', flows: CARD_FLOW },
  bin: { operators: [...LISTS, 'prefix', 'range'], kind: 'digits', flows: CARD_FLOW },
  issuer_country: { operators: LISTS, kind: 'country', flows: CARD_FLOW },
  payment_source: { operators: LISTS, kind: 'payment_source', flows: TRANSACTION_FLOWS },
  merchant_initiated: { operators: ['equals'], kind: 'boolean', flows: TRANSACTION_FLOWS },
  is_subsequent_payment: { operators: ['equals'], kind: 'boolean', flows: TRANSACTION_FLOWS },
  metadata: { operators: [...LISTS, 'prefix'], kind: 'text', flows: ALL_FLOWS },
  buyer_external_identifier: { operators: [...LISTS, 'prefix'], kind: 'text', flows: TRANSACTION_FLOWS },
  anti_fraud_decision: { operators: LISTS, kind: 'anti_fraud', flows: TRANSACTION_FLOWS },
  three_d_secure_status: { operators: LISTS, kind: 'three_ds', flows: CARD_FLOW },
  velocity: { operators: VELOCITY_OPERATORS, kind: 'velocity', flows: TRANSACTION_FLOWS },
};

export interface ConditionProblem {
  /** JSON pointer inside the condition, e.g. `/value/min`. */
  pointer: string;
  message: string;
}

const MAX_AMOUNT = 99_999_999;
const MAX_LIST = 100;

function scalarProblem(kind: ValueKind, value: unknown): string | null {
  if (kind === 'boolean') return typeof value === 'boolean' ? null : 'must be true or false';
  if (typeof value !== 'string' || value.length === 0 || value.length > 200)
    return 'must be a string of 1 to 200 characters';
  switch (kind) {
    case 'currency':
      return isCurrency(value) ? null : `"${value}" is not an ISO 4217 currency code`;
    case 'country':
      return isCountry(value) ? null : `"${value}" is not an ISO 3166-1 alpha-2 country code`;
    case 'method':
      return /^[a-z0-9][a-z0-9-]{0,49}$/.test(value)
        ? null
        : `"${value}" is not a payment method name (lowercase letters, digits and dashes)`;
    case 'scheme':
      return (CARD_SCHEMES as readonly string[]).includes(value)
        ? null
        : `"${value}" is not a card scheme (one of ${CARD_SCHEMES.join(', ')})`;
    case 'digits':
      return /^\d{1,8}$/.test(value) ? null : 'must be 1 to 8 digits';
    case 'payment_source':
      return (PAYMENT_SOURCES as readonly string[]).includes(value)
        ? null
        : `"${value}" is not a payment source (one of ${PAYMENT_SOURCES.join(', ')})`;
    case 'anti_fraud':
      return (ANTI_FRAUD_DECISIONS as readonly string[]).includes(value)
        ? null
        : `"${value}" is not an anti-fraud decision (one of ${ANTI_FRAUD_DECISIONS.join(', ')})`;
    case 'three_ds':
      return (THREE_DS_STATUSES as readonly string[]).includes(value)
        ? null
        : `"${value}" is not a 3DS status (one of ${THREE_DS_STATUSES.join(', ')})`;
    default:
      return null;
  }
}

function amountRangeProblem(value: unknown): ConditionProblem | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { pointer: '/value', message: 'An amount range is an object {currency, min, max}' };
  const range = value as Record<string, unknown>;
  if (typeof range.currency !== 'string' || !isCurrency(range.currency))
    return { pointer: '/value/currency', message: 'An amount range needs the ISO 4217 currency its amounts are in' };
  return boundsProblem(range, (bound) =>
    Number.isInteger(bound) && (bound as number) >= 0 && (bound as number) <= MAX_AMOUNT
      ? null
      : `must be a whole amount in minor units between 0 and ${MAX_AMOUNT}`,
  );
}

function binRangeProblem(value: unknown): ConditionProblem | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { pointer: '/value', message: 'A BIN range is an object {min, max} of digit strings of one length' };
  const range = value as Record<string, unknown>;
  const problem = boundsProblem(
    range,
    (bound) => (typeof bound === 'string' && /^\d{4,8}$/.test(bound) ? null : 'must be 4 to 8 digits'),
    true,
  );
  if (problem) return problem;
  if ((range.min as string).length !== (range.max as string).length)
    return { pointer: '/value/max', message: 'min and max of a BIN range must have the same number of digits' };
  return null;
}

function boundsProblem(
  range: Record<string, unknown>,
  check: (bound: unknown) => string | null,
  bothRequired = false,
): ConditionProblem | null {
  const has = (k: string) => range[k] !== undefined && range[k] !== null;
  if (bothRequired ? !has('min') || !has('max') : !has('min') && !has('max'))
    return {
      pointer: '/value',
      message: bothRequired ? 'A range needs both min and max' : 'A range needs min, max or both',
    };
  for (const bound of ['min', 'max']) {
    if (!has(bound)) continue;
    const problem = check(range[bound]);
    if (problem) return { pointer: `/value/${bound}`, message: `${bound} ${problem}` };
  }
  if (has('min') && has('max') && compare(range.min as string | number, range.max as string | number) > 0)
    return { pointer: '/value/min', message: 'min must not be greater than max' };
  return null;
}

const compare = (a: string | number, b: string | number) =>
  typeof a === 'number' && typeof b === 'number' ? a - b : String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;

/** What is wrong with one condition for this flow, or null. */
export function conditionProblem(condition: FlowConditionJson, flow: FlowName): ConditionProblem | null {
  const spec = FIELD_SPECS[condition.field as ConditionField];
  if (!spec)
    return {
      pointer: '/field',
      message: `Unknown condition field "${condition.field}"; use one of ${CONDITION_FIELDS.join(', ')}`,
    };
  if (!spec.flows.includes(flow))
    return {
      pointer: '/field',
      message: `The ${flow} flow does not know ${condition.field} (fields of this flow: ${CONDITION_FIELDS.filter((f) => FIELD_SPECS[f].flows.includes(flow)).join(', ')})`,
    };
  if (!spec.operators.includes(condition.operator))
    return {
      pointer: '/operator',
      message: `${condition.field} takes the operators ${spec.operators.join(', ')}, not ${condition.operator}`,
    };
  if (condition.field === 'metadata') {
    if (typeof condition.key !== 'string' || condition.key.length === 0 || condition.key.length > 50)
      return { pointer: '/key', message: 'A metadata condition names the metadata key (1 to 50 characters) in key' };
  } else if (condition.key !== undefined && condition.key !== null) {
    return { pointer: '/key', message: 'key applies to metadata conditions only' };
  }
  const { operator, value } = condition;
  if (condition.field === 'velocity') return velocityProblem(value, flow);
  if (operator === 'range') return condition.field === 'amount' ? amountRangeProblem(value) : binRangeProblem(value);
  if (operator === 'one_of' || operator === 'not_one_of') {
    if (!Array.isArray(value) || value.length === 0 || value.length > MAX_LIST)
      return { pointer: '/value', message: `${operator} takes a list of 1 to ${MAX_LIST} values` };
    for (const [i, item] of value.entries()) {
      const problem = scalarProblem(spec.kind, item);
      if (problem) return { pointer: `/value/${i}`, message: `${condition.field}: ${problem}` };
    }
    return null;
  }
  const problem = scalarProblem(spec.kind, value);
  return problem ? { pointer: '/value', message: `${condition.field}: ${problem}` } : null;
}

/** The fact a condition looks at; undefined when the transaction does not know it. */
function factOf(condition: FlowConditionJson, facts: FlowFacts): string | number | boolean | null {
  switch (condition.field as ConditionField) {
    case 'amount':
      return facts.amount;
    case 'currency':
      return facts.currency;
    case 'country':
      return facts.country;
    case 'payment_method':
      return facts.method;
    case 'card_scheme':
      return facts.scheme;
    case 'bin':
      return facts.bin;
    case 'issuer_country':
      return facts.issuerCountry;
    case 'payment_source':
      return facts.paymentSource;
    case 'merchant_initiated':
      return facts.merchantInitiated;
    case 'is_subsequent_payment':
      return facts.isSubsequentPayment;
    case 'metadata':
      return facts.metadata?.[condition.key ?? ''] ?? null;
    case 'buyer_external_identifier':
      return facts.buyerExternalIdentifier;
    case 'anti_fraud_decision':
      return facts.antiFraudDecision;
    case 'three_d_secure_status':
      return facts.threeDSecureStatus;
    case 'velocity':
      return null;
  }
  return null;
}

/** A BIN value matches the card's first digits of the same length. */
const equalsFact = (field: string, fact: string | number | boolean, value: unknown) =>
  field === 'bin' && typeof fact === 'string' && typeof value === 'string' ? fact.startsWith(value) : fact === value;

/**
 * Why the condition does not hold, or null when it holds. A fact the transaction does not know
 * (no country, no card, an issuer country the BIN table lacks, a missing metadata key) holds
 * for `not_one_of` only.
 */
export function conditionMiss(condition: FlowConditionJson, facts: FlowFacts): string | null {
  if (condition.field === 'velocity') return velocityMiss(condition, facts.velocity);
  const fact = factOf(condition, facts);
  const { field, operator, value } = condition;
  const name = field === 'metadata' ? `metadata.${condition.key}` : field;
  if (fact === null) return operator === 'not_one_of' ? null : `${name} is not known for this transaction`;
  switch (operator) {
    case 'equals':
      return equalsFact(field, fact, value) ? null : `${name} is ${JSON.stringify(fact)}, not ${JSON.stringify(value)}`;
    case 'one_of':
      return (value as unknown[]).some((v) => equalsFact(field, fact, v))
        ? null
        : `${name} ${JSON.stringify(fact)} is not one of the listed values`;
    case 'not_one_of':
      return (value as unknown[]).some((v) => equalsFact(field, fact, v))
        ? `${name} ${JSON.stringify(fact)} is one of the excluded values`
        : null;
    case 'prefix':
      return String(fact).startsWith(String(value)) ? null : `${name} does not start with ${JSON.stringify(value)}`;
    case 'range':
      return rangeMiss(field, fact, value as Record<string, unknown>, facts);
  }
  return `unknown operator ${operator}`;
}

function rangeMiss(
  field: string,
  fact: string | number | boolean,
  range: Record<string, unknown>,
  facts: FlowFacts,
): string | null {
  let at: string | number = fact as string | number;
  if (field === 'amount') {
    if (range.currency !== facts.currency)
      return `the amount range is in ${range.currency}, the transaction in ${facts.currency}`;
  } else {
    // A BIN range compares the card's first digits, as many as the bounds have.
    at = String(fact).slice(0, String(range.min).length);
    if (at.length < String(range.min).length) return 'the card number is too short for this BIN range';
  }
  const low = range.min ?? null;
  const high = range.max ?? null;
  if (low !== null && compare(at, low as string | number) < 0) return `${field} ${at} is below ${low}`;
  if (high !== null && compare(at, high as string | number) > 0) return `${field} ${at} is above ${high}`;
  return null;
}
