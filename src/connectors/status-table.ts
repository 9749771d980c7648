import { ConnectorError } from './connector.ts';

/**
 * Provider status tables (STYLE E4): each provider's status values onto ours as a complete
 * `Record<ProviderStatus, OurStatus>` the compiler checks, so a value added to a provider's types
 * (a library upgrade) fails the build until it is mapped. A value the table does not know at run
 * time (the provider sent something newer than its types) is never read as `failed` or as an
 * approval: each mapping says what it does with it, most often `unknownStatus`.
 */

/**
 * The literal members of a provider library's enum type, without the open `string` member some
 * add so that newer API values type-check (Stripe's `OtherString`): a table over them is complete.
 */
export type KnownValues<T> = T extends string ? (string extends T ? never : T) : never;

/** Whether `value` is a key of `table` (own keys only: `toString` is no provider status). */
export function inTable<K extends string>(table: Readonly<Record<K, unknown>>, value: unknown): value is K {
  return typeof value === 'string' && Object.hasOwn(table, value);
}

/**
 * A status the provider sent that our table does not know: the outcome is unknown, as after a
 * timeout (never a decline or a failure), so the call is left to reconciliation, which asks the
 * provider again until it answers a status we know. The message, which callers record and log,
 * names the value, so an operator sees what to map.
 */
export function unknownStatus(provider: string, field: string, value: unknown): ConnectorError {
  return new ConnectorError(
    'timeout',
    `${provider} answered ${field} ${JSON.stringify(value)}, which this version does not know: the outcome is treated as unknown and left to reconciliation`,
    {
      code: String(value),
      description: `unknown ${field}`,
    },
  );
}
