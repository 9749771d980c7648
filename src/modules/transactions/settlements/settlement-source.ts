import type { PaymentConnector } from '../../../connectors/connector.ts';
import type { Deps } from '../../../context.ts';
import type { TransactionRow } from '../../../db/schema-transactions.ts';
import { isProduction } from '../../../errors/sandbox-only.ts';

/**
 * Where a transaction's settlement records come from (docs/settlements.md):
 * - `provider`: the connector reads its provider's reports (`settlements`); the records are
 *   written by the `ingest-settlements` job only, with the provider's amounts, fees and report ids;
 * - `simulated`: a built-in sandbox connector (registered as one: no `settlements`), or no payment
 *   service at all (the sandbox's gift cards): the deterministic simulation of
 *   settlements.service.ts, outside production only;
 * - `none`: a real connector whose provider's reports are not read (yet): no record is ever made
 *   up for it.
 */
export type SettlementSource = 'provider' | 'simulated' | 'none';

/**
 * Pure: the source for a definition id, its registered connector and whether that is a built-in
 * simulator; in production nothing is simulated (docs/production.md).
 */
export function settlementSourceOf(
  definitionId: string | null,
  connector: Pick<PaymentConnector, 'settlements'> | null,
  sandbox: boolean,
  production = false,
): SettlementSource {
  if (connector?.settlements) return 'provider';
  if (production) return 'none';
  return definitionId === null || sandbox ? 'simulated' : 'none';
}

/** The definition id a transaction was processed with (its payment service snapshot), or null. */
export function definitionOf(row: Pick<TransactionRow, 'payment_service'>): string | null {
  return (
    (row.payment_service as { payment_service_definition_id?: string } | null)?.payment_service_definition_id ?? null
  );
}

/** Whether the sandbox simulates this transaction's settlements (jobs are enqueued only then). */
export function simulatesSettlements(deps: Deps, row: Pick<TransactionRow, 'payment_service'>): boolean {
  const definition = definitionOf(row);
  const connector = definition === null ? null : deps.connectors.find(definition);
  return (
    settlementSourceOf(
      definition,
      connector,
      definition !== null && deps.connectors.isSandbox(definition),
      isProduction(deps.config),
    ) === 'simulated'
  );
}
