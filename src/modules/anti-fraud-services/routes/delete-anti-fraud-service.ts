import { defineRoute } from '../../../http/define-route.ts';
import { AntiFraudServiceParams } from '../anti-fraud-services.schemas.ts';
import { deleteAntiFraudService as remove } from '../anti-fraud-services.service.ts';

export const deleteAntiFraudService = defineRoute({
  operationId: 'deleteAntiFraudService',
  method: 'DELETE',
  url: '/anti-fraud-services/:anti_fraud_service_id',
  scope: 'anti-fraud-services.write',
  tags: ['anti-fraud-services'],
  summary: 'Disconnect an anti-fraud service',
  description: 'Payments made after the deletion commits are no longer sent to it.',
  status: 204,
  params: AntiFraudServiceParams,
  response: null,
  handler: ({ ctx, params }) => remove(ctx, params.anti_fraud_service_id),
});
