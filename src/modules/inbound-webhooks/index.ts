import type { FastifyInstance } from 'fastify';
import { receiveProviderWebhookRoute } from './routes/receive-provider-webhook.ts';

/** Most providers sign at most a few KB per event; Adyen batches stay well below this. */
const WEBHOOK_BODY_LIMIT_BYTES = 256 * 1024;

/**
 * Inbound provider webhooks (docs/connectors.md). Registered in its own plugin scope so that the
 * body reaches the connector as the exact bytes the provider signed, whatever its content type:
 * the shared JSON parser would re-serialize it and break every signature.
 */
export async function inboundWebhooks(app: FastifyInstance): Promise<void> {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT_BYTES }, (_request, body, done) =>
    done(null, body),
  );
  app.route(receiveProviderWebhookRoute);
}
