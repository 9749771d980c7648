import { defineRoute } from '../../../http/define-route.ts';
import { CardSchemeDefinitionsSchema } from '../card-scheme-definitions.schemas.ts';
import { listCardSchemeDefinitions as list } from '../card-scheme-definitions.service.ts';

export const listCardSchemeDefinitions = defineRoute({
  operationId: 'listCardSchemeDefinitions',
  method: 'GET',
  url: '/card-scheme-definitions',
  scope: 'card-scheme-definitions.read',
  tags: ['card-scheme-definitions'],
  summary: 'List card scheme definitions (name and icon per scheme)',
  status: 200,
  embed: true,
  response: CardSchemeDefinitionsSchema,
  handler: ({ ctx }) => list(ctx),
});
