import { defineRoute } from '../../../http/define-route.ts';
import { CreateThreeDsScenarioBody, ThreeDsScenarioSchema } from '../three-ds-scenarios.schemas.ts';
import { createThreeDsScenario as create } from '../three-ds-scenarios.service.ts';

export const createThreeDsScenario = defineRoute({
  operationId: 'createThreeDsScenario',
  method: 'POST',
  url: '/three-ds-scenarios',
  scope: 'three-ds-scenarios.write',
  tags: ['three-ds-scenarios'],
  summary: 'Create a simulated 3DS outcome (sandbox only)',
  description:
    'Sandbox transactions whose every set condition matches get this outcome instead of a real 3DS flow (the newest matching scenario wins). ' +
    'At least one condition is required; `outcome.result` is required when the authentication status is C. ' +
    'A card number condition is kept only as a keyed fingerprint and returned masked. 403 in production.',
  status: 201,
  body: CreateThreeDsScenarioBody,
  response: ThreeDsScenarioSchema,
  handler: ({ ctx, body }) => create(ctx, body),
});
