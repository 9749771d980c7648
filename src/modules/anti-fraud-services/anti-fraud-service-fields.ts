import type { Deps } from '../../context.ts';
import type { AntiFraudDefinition } from '../../connectors/anti-fraud/anti-fraud-connector.ts';
import type { SealedJson } from '../../db/schema.ts';
import type { AntiFraudServiceRow } from '../../db/schema-anti-fraud.ts';
import type { Executor } from '../../db/transaction.ts';
import { AppError } from '../../errors/app-error.ts';

/**
 * An anti-fraud service's credentials: checked against its definition (known keys, required ones,
 * none twice) and split into plain settings and secrets sealed per key in the vault. Messages name
 * keys, never values.
 */

const bindingOf = (id: string, key: string) => ({ table: 'anti_fraud_services', column: `field:${key}`, rowId: id });

function refused(problems: string[]): AppError {
  return new AppError('bad_request', `The anti-fraud service fields are not valid: ${problems.join('; ')}`, {
    details: problems.map((message) => ({ location: 'body', pointer: '/fields', message, type: 'value_error' })),
  });
}

export function checkedFields(
  definition: AntiFraudDefinition,
  list: ReadonlyArray<{ key: string; value: string }>,
): Record<string, string> {
  const values: Record<string, string> = {};
  const problems: string[] = [];
  const known = new Set(definition.fields.map((f) => f.key));
  for (const { key, value } of list) {
    if (Object.hasOwn(values, key)) problems.push(`${key}: is sent more than once`);
    else if (!known.has(key)) problems.push(`${key}: is not a field of ${definition.id}`);
    values[key] = value;
  }
  for (const field of definition.fields)
    if (field.required && !values[field.key]?.trim()) problems.push(`${field.key}: is required`);
  if (problems.length > 0) throw refused(problems);
  return values;
}

export async function sealAntiFraudFields(
  db: Executor,
  deps: Deps,
  merchantAccountId: string,
  id: string,
  definition: AntiFraudDefinition,
  values: Record<string, string>,
): Promise<{ fields: Record<string, string>; sealed_fields: Record<string, SealedJson> }> {
  const secret = new Set(definition.fields.filter((f) => f.secret).map((f) => f.key));
  const stored = { fields: {} as Record<string, string>, sealed_fields: {} as Record<string, SealedJson> };
  for (const [key, value] of Object.entries(values)) {
    if (secret.has(key))
      stored.sealed_fields[key] = await deps.vault.encrypt(db, merchantAccountId, value, bindingOf(id, key));
    else stored.fields[key] = value;
  }
  return stored;
}

/** Every credential of the service, secrets opened (for the call only; never logged or stored). */
export async function openAntiFraudFields(
  db: Executor,
  deps: Deps,
  row: AntiFraudServiceRow,
): Promise<Record<string, string>> {
  const values = { ...row.fields };
  for (const [key, sealed] of Object.entries(row.sealed_fields))
    values[key] = await deps.vault.decrypt(db, row.merchant_account_id, sealed, bindingOf(row.id, key));
  return values;
}
