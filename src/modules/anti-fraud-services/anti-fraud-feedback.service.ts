import type {
  AntiFraudChargeback,
  AntiFraudDelivery,
  AntiFraudTransactionUpdate,
} from '../../connectors/anti-fraud/anti-fraud-connector.ts';
import type { Deps } from '../../context.ts';
import type { Executor } from '../../db/transaction.ts';
import { openAntiFraudFields } from './anti-fraud-service-fields.ts';
import { findAntiFraudService } from './anti-fraud-services.repo.ts';

/** One report to the service that decided on a payment (decision 0143). */
export type AntiFraudReport = { update: AntiFraudTransactionUpdate } | { chargeback: AntiFraudChargeback };

export interface AntiFraudReportResult {
  /** Null: the service's definition takes no such report, and nothing was sent. */
  delivery: AntiFraudDelivery | null;
  definitionId: string | null;
}

/**
 * Sends one report to the merchant account's service `serviceId` (the one that holds the order,
 * active or not), its secrets opened for this call only. Call it with no database transaction open
 * (STYLE D4): it waits on the network. A deleted service or an unknown definition is `refused`:
 * no retry brings them back.
 */
export async function reportToAntiFraudService(
  db: Executor,
  deps: Deps,
  merchantAccountId: string,
  serviceId: string,
  transactionId: string,
  report: AntiFraudReport,
): Promise<AntiFraudReportResult> {
  const row = await findAntiFraudService(db, merchantAccountId, serviceId);
  if (!row)
    return { delivery: { result: 'refused', status: 'service_deleted', description: null }, definitionId: null };
  const definitionId = row.anti_fraud_service_definition_id;
  const connector = deps.antiFraud.find(definitionId);
  if (!connector)
    return { delivery: { result: 'refused', status: 'unknown_definition', description: null }, definitionId };
  const send =
    'update' in report
      ? connector.updateTransaction &&
        ((credentials: Record<string, string>) =>
          connector.updateTransaction!({ credentials, transactionId, update: report.update }))
      : connector.reportChargeback &&
        ((credentials: Record<string, string>) =>
          connector.reportChargeback!({ credentials, transactionId, chargeback: report.chargeback }));
  if (!send) return { delivery: null, definitionId };
  const credentials = await openAntiFraudFields(db, deps, row);
  return { delivery: await send(credentials), definitionId };
}
