import { defineRoute } from '../../../http/define-route.ts';
import { createAccountUpdaterJob as create } from '../account-updater.service.ts';
import { AccountUpdaterJobSchema, CreateAccountUpdaterJobBody } from '../account-updater.schemas.ts';

export const createAccountUpdaterJob = defineRoute({
  operationId: 'createAccountUpdaterJob',
  method: 'POST',
  url: '/account-updater/jobs',
  scope: 'payment-methods.write',
  tags: ['account-updater'],
  summary: 'Schedule stored cards for an account update',
  description:
    "Answers 201 with the job and its inquiries, or 204 with no body when no payment method qualifies. 403 in production: the updater is the sandbox's simulation (docs/production.md).",
  status: 201,
  noContentWhenNull: true,
  body: CreateAccountUpdaterJobBody,
  response: AccountUpdaterJobSchema,
  handler: ({ ctx, body }) => create(ctx, body),
});
