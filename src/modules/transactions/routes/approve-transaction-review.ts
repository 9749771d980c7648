import { defineRoute } from '../../../http/define-route.ts';
import { TransactionParams } from '../create-transaction.schema.ts';
import { approveTransactionReview as approve } from '../review/review-transaction.service.ts';
import { TransactionSchema } from '../transaction.schema.ts';

export const approveTransactionReview = defineRoute({
  operationId: 'approveTransactionReview',
  method: 'POST',
  url: '/transactions/:transaction_id/review/approve',
  scope: 'transactions.write',
  tags: ['transactions'],
  summary: 'Approve a transaction held for manual anti-fraud review',
  description:
    'Ends the review (`pending_review` false). A transaction created with intent `capture` was authorized only while held, and is captured now, in full, as `POST /transactions/{transaction_id}/capture` does (its events and webhooks); an intent `authorize` transaction can be captured from now on. `anti_fraud_decision` stays `review`. A transaction not pending review, or whose authorization has not completed, is 400 (docs/risk.md, "Manual review").',
  status: 200,
  params: TransactionParams,
  response: TransactionSchema,
  handler: ({ ctx, params }) => approve(ctx, params.transaction_id),
});
