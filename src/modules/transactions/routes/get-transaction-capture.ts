import { defineRoute } from '../../../http/define-route.ts';
import { getTransactionCapture as run } from '../transactions.service.ts';
import { CaptureParams, CaptureSchema } from '../capture.schema.ts';

export const getTransactionCapture = defineRoute({
  operationId: 'getTransactionCapture',
  method: 'GET',
  url: '/transactions/:transaction_id/captures/:capture_id',
  scope: 'transactions.read',
  tags: ['transactions'],
  summary: 'Read one capture of a transaction',
  status: 200,
  params: CaptureParams,
  response: CaptureSchema,
  handler: ({ ctx, params }) => run(ctx, params.transaction_id, params.capture_id),
});
