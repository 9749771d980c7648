import { defineRoute } from '../../../http/define-route.ts';
import { AntiFraudServiceSchema, CreateAntiFraudServiceBody } from '../anti-fraud-services.schemas.ts';
import { createAntiFraudService as create } from '../anti-fraud-services.service.ts';

export const createAntiFraudService = defineRoute({
  operationId: 'createAntiFraudService',
  method: 'POST',
  url: '/anti-fraud-services',
  scope: 'anti-fraud-services.write',
  tags: ['anti-fraud-services'],
  summary: 'Connect an anti-fraud service',
  description:
    'Every payment of the merchant account is then sent to this service before its authorization; its decision (accept, reject, review, error) is the transaction\'s anti_fraud_decision (docs/risk.md, "Anti-fraud services"). One active service per merchant account (409 otherwise). Secret credentials are sealed and never returned.',
  status: 201,
  body: CreateAntiFraudServiceBody,
  response: AntiFraudServiceSchema,
  handler: ({ ctx, body }) => create(ctx, body),
});
