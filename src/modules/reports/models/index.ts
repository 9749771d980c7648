import type { ReportModel } from '../report-spec.schemas.ts';
import { accountsReceivablesModel } from './accounts-receivables.model.ts';
import { detailedSettlementModel } from './detailed-settlement.model.ts';
import type { ReportModelDef } from './report-model.ts';
import { transactionRetriesModel } from './transaction-retries.model.ts';
import { transactionsModel } from './transactions.model.ts';

/** Every report model by its `spec.model` name. */
export const REPORT_MODEL_DEFS: Record<ReportModel, ReportModelDef<unknown>> = {
  transactions: transactionsModel,
  transaction_retries: transactionRetriesModel,
  detailed_settlement: detailedSettlementModel,
  accounts_receivables: accountsReceivablesModel,
};
