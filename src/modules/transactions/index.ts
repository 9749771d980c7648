import type { FastifyInstance } from 'fastify';
import { cancelTransaction } from './routes/cancel-transaction.ts';
import { captureTransaction } from './routes/capture-transaction.ts';
import { createFullTransactionRefund } from './routes/create-full-transaction-refund.ts';
import { createTransactionRefund } from './routes/create-transaction-refund.ts';
import { createTransaction } from './routes/create-transaction.ts';
import { getRefund } from './routes/get-refund.ts';
import { getTransactionCapture } from './routes/get-transaction-capture.ts';
import { getTransactionRefundSettlement } from './routes/get-transaction-refund-settlement.ts';
import { getTransactionRefund } from './routes/get-transaction-refund.ts';
import { getTransactionSettlement } from './routes/get-transaction-settlement.ts';
import { getTransaction } from './routes/get-transaction.ts';
import { incrementTransactionAuthorization } from './routes/increment-transaction-authorization.ts';
import { listTransactionActions } from './routes/list-transaction-actions.ts';
import { listTransactionCaptures } from './routes/list-transaction-captures.ts';
import { listTransactionChargebackReversals } from './routes/list-transaction-chargeback-reversals.ts';
import { listTransactionChargebacks } from './routes/list-transaction-chargebacks.ts';
import { listTransactionEvents } from './routes/list-transaction-events.ts';
import { listTransactionRefundSettlements } from './routes/list-transaction-refund-settlements.ts';
import { listTransactionRefunds } from './routes/list-transaction-refunds.ts';
import { listTransactions } from './routes/list-transactions.ts';
import { listTransactionSettlements } from './routes/list-transaction-settlements.ts';
import { syncTransaction } from './routes/sync-transaction.ts';
import { updateTransactionSession } from './routes/update-transaction-session.ts';
import { updateTransaction } from './routes/update-transaction.ts';
import { voidTransaction } from './routes/void-transaction.ts';
import { approveTransactionReview } from './routes/approve-transaction-review.ts';
import { declineTransactionReview } from './routes/decline-transaction-review.ts';

export async function transactions(app: FastifyInstance): Promise<void> {
  for (const route of [
    createTransaction,
    listTransactions,
    getTransaction,
    updateTransaction,
    captureTransaction,
    voidTransaction,
    approveTransactionReview,
    declineTransactionReview,
    cancelTransaction,
    syncTransaction,
    createTransactionRefund,
    createFullTransactionRefund,
    listTransactionRefunds,
    getTransactionRefund,
    getRefund,
    listTransactionActions,
    listTransactionEvents,
    listTransactionSettlements,
    getTransactionSettlement,
    incrementTransactionAuthorization,
    listTransactionCaptures,
    getTransactionCapture,
    listTransactionRefundSettlements,
    getTransactionRefundSettlement,
    listTransactionChargebacks,
    listTransactionChargebackReversals,
    updateTransactionSession,
  ]) {
    app.route(route);
  }
}
