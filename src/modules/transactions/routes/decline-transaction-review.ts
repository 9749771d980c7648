import { defineRoute } from '../../../http/define-route.ts';
import { TransactionParams } from '../create-transaction.schema.ts';
import { declineTransactionReview as decline } from '../review/review-transaction.service.ts';
import { TransactionSchema } from '../transaction.schema.ts';

export const declineTransactionReview = defineRoute({
  operationId: 'declineTransactionReview',
  method: 'POST',
  url: '/transactions/:transaction_id/review/decline',
  scope: 'transactions.write',
  tags: ['transactions'],
  summary: 'Decline a transaction held for manual anti-fraud review',
  description:
    'Ends the review (`pending_review` false) and voids the authorization, as `POST /transactions/{transaction_id}/void` does. A captured transaction is 400 (refund it); a transaction not pending review, or whose authorization has not completed, is 400 (docs/risk.md, "Manual review").',
  status: 200,
  params: TransactionParams,
  response: TransactionSchema,
  handler: ({ ctx, params }) => decline(ctx, params.transaction_id),
});
