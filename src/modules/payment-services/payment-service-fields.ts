import type { Deps } from '../../context.ts';
import type { ConnectorDefinition, DefinitionField, PaymentConnector } from '../../connectors/connector.ts';
import type { PaymentServiceRow, SealedJson } from '../../db/schema.ts';
import type { Executor } from '../../db/transaction.ts';
import { AppError, type ErrorDetail } from '../../errors/app-error.ts';
import { callConnector } from '../payment-service-definitions/payment-service-definitions.service.ts';

/**
 * Credential and reporting fields of a payment service: checking them against the definition,
 * verifying credentials with the connector, and sealing secret values in the vault. Plaintext
 * secrets exist only in memory here and in the connector call; error messages name keys, never
 * values.
 */

export type FieldKind = 'field' | 'reporting_field';
export type FieldValues = Record<string, string>;

const LIST_NAME: Record<FieldKind, string> = { field: 'fields', reporting_field: 'reporting_fields' };

export function definitionFieldsOf(definition: ConnectorDefinition, kind: FieldKind): DefinitionField[] {
  return kind === 'field' ? definition.fields : definition.reportingFields;
}

export interface FieldProblem {
  kind: FieldKind;
  key: string;
  message: string;
}

/** The 400 for field problems: one detail per problem, pointing at the list and naming the key. */
export function fieldsError(problems: FieldProblem[], message = 'The payment service fields are not valid'): AppError {
  const details: ErrorDetail[] = problems.map((p) => ({
    location: 'body',
    pointer: `/${LIST_NAME[p.kind]}`,
    message: `${p.key}: ${p.message}`,
    type: 'value_error',
  }));
  return new AppError('bad_request', `${message}: ${[...new Set(problems.map((p) => p.key))].join(', ')}`, { details });
}

/** A body's key/value list as a map; a key sent twice is refused (which one would win is a guess). */
export function toFieldMap(
  list: ReadonlyArray<{ key: string; value: string }> | null | undefined,
  kind: FieldKind,
): FieldValues {
  const values: FieldValues = {};
  const twice = new Set<string>();
  for (const { key, value } of list ?? []) {
    if (Object.hasOwn(values, key)) twice.add(key);
    values[key] = value;
  }
  if (twice.size > 0) throw fieldsError([...twice].map((key) => ({ kind, key, message: 'is sent more than once' })));
  return values;
}

/** Merges a change key by key; an empty value removes the key (a VoidableField). */
export function mergeFields(current: FieldValues, change: FieldValues): FieldValues {
  const merged = { ...current, ...change };
  return Object.fromEntries(Object.entries(merged).filter(([, value]) => value.trim() !== ''));
}

/** Unknown keys and missing required fields. */
export function structuralProblems(
  definition: ConnectorDefinition,
  kind: FieldKind,
  values: FieldValues,
): FieldProblem[] {
  const known = definitionFieldsOf(definition, kind);
  const problems: FieldProblem[] = [];
  for (const key of Object.keys(values)) {
    if (!known.some((field) => field.key === key))
      problems.push({ kind, key, message: `is not a field of the definition ${definition.id}` });
  }
  for (const field of known) {
    if (field.required && !(values[field.key] ?? '').trim())
      problems.push({ kind, key: field.key, message: 'is required' });
  }
  return problems;
}

/** Replaces every secret value in a connector's message: a provider may echo what it was sent. */
function withoutSecrets(message: string, definition: ConnectorDefinition, values: FieldValues): string {
  let clean = message;
  for (const field of definition.fields) {
    const secret = field.secret ? values[field.key] : undefined;
    if (secret) clean = clean.split(secret).join('[redacted]');
  }
  return clean;
}

/**
 * Checks the field lists (reporting fields unless null) and then asks the connector to verify the
 * credentials, only once they are well formed. Throws the 400 listing every problem. Runs outside
 * any transaction: the connector may call the provider.
 */
export async function verifyFields(
  connector: PaymentConnector,
  credentials: FieldValues,
  reporting: FieldValues | null,
): Promise<void> {
  const { definition } = connector;
  const problems = structuralProblems(definition, 'field', credentials);
  if (reporting) problems.push(...structuralProblems(definition, 'reporting_field', reporting));
  if (problems.length > 0) throw fieldsError(problems);
  const outcome = await callConnector(() => connector.verifyCredentials(credentials));
  if (!outcome.ok) {
    const found = outcome.problems.map((p) => ({
      kind: 'field' as const,
      key: p.key,
      message: withoutSecrets(p.message, definition, credentials),
    }));
    throw fieldsError(
      found.length > 0 ? found : [{ kind: 'field', key: 'fields', message: 'were refused by the payment service' }],
      'The payment service refused the credentials',
    );
  }
}

const bindingOf = (id: string, column: string) => ({ table: 'payment_services', column, rowId: id });

export interface StoredFields {
  fields: FieldValues;
  reporting_fields: FieldValues;
  sealed_fields: Record<string, SealedJson>;
}

/** Splits the values by the definition's `secret` flag and seals each secret one, bound to the row and key. */
export async function sealFields(
  db: Executor,
  deps: Deps,
  merchantAccountId: string,
  id: string,
  definition: ConnectorDefinition,
  values: Record<FieldKind, FieldValues>,
): Promise<StoredFields> {
  const stored: StoredFields = { fields: {}, reporting_fields: {}, sealed_fields: {} };
  for (const kind of ['field', 'reporting_field'] as const) {
    const secret = new Set(
      definitionFieldsOf(definition, kind)
        .filter((f) => f.secret)
        .map((f) => f.key),
    );
    for (const [key, value] of Object.entries(values[kind])) {
      const column = `${kind}:${key}`;
      if (secret.has(key))
        stored.sealed_fields[column] = await deps.vault.encrypt(db, merchantAccountId, value, bindingOf(id, column));
      else stored[kind === 'field' ? 'fields' : 'reporting_fields'][key] = value;
    }
  }
  return stored;
}

/** Every value of one kind, secrets opened. */
export async function openFields(
  db: Executor,
  deps: Deps,
  row: PaymentServiceRow,
  kind: FieldKind,
): Promise<FieldValues> {
  const values: FieldValues = { ...(kind === 'field' ? row.fields : row.reporting_fields) };
  const prefix = `${kind}:`;
  for (const [column, sealed] of Object.entries(row.sealed_fields)) {
    if (column.startsWith(prefix))
      values[column.slice(prefix.length)] = await deps.vault.decrypt(
        db,
        row.merchant_account_id,
        sealed,
        bindingOf(row.id, column),
      );
  }
  return values;
}
