import { defineRoute } from '../../../http/define-route.ts';
import { AntiFraudServiceParams, AntiFraudServiceSchema } from '../anti-fraud-services.schemas.ts';
import { getAntiFraudService as get } from '../anti-fraud-services.service.ts';

export const getAntiFraudService = defineRoute({
  operationId: 'getAntiFraudService',
  method: 'GET',
  url: '/anti-fraud-services/:anti_fraud_service_id',
  scope: 'anti-fraud-services.read',
  tags: ['anti-fraud-services'],
  summary: 'Read an anti-fraud service',
  status: 200,
  params: AntiFraudServiceParams,
  response: AntiFraudServiceSchema,
  handler: ({ ctx, params }) => get(ctx, params.anti_fraud_service_id),
});
