import { createHmac, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import type { InboundWebhookRequest } from '../../src/connectors/connector-webhooks.ts';
import type { FakeAnswer } from './fake-server.ts';
import { paypalError } from './paypal-fake-state.ts';

/**
 * The PayPal fake's webhooks (paypal-fake.ts): deliveries signed with the fake's own key over
 * PayPal's signed string (`<transmission id>|<time>|<webhook id>|<CRC32 of the body>`), and
 * verify-webhook-signature, which checks it over the event bytes exactly as received.
 */

export const PAYPAL_FAKE_WEBHOOK_ID = '8PT597110X687430LKGECATA';
const SIGNING_KEY = randomBytes(32);
const now = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');

function signature(transmissionId: string, time: string, webhookId: string, body: string): string {
  const text = `${transmissionId}|${time}|${webhookId}|${crc32(Buffer.from(body, 'utf8'))}`;
  return createHmac('sha256', SIGNING_KEY).update(text).digest('base64');
}

/** verify-webhook-signature over the event's bytes as received (the text after `"webhook_event":`). */
export function verifyWebhook(text: string): FakeAnswer {
  const body = JSON.parse(text) as Record<string, string>;
  const at = text.indexOf('"webhook_event":');
  const event = at < 0 ? '' : text.slice(at + '"webhook_event":'.length, -1);
  const fields = ['auth_algo', 'cert_url', 'transmission_id', 'transmission_sig', 'transmission_time', 'webhook_id'];
  if (fields.some((f) => typeof body[f] !== 'string') || !event)
    return paypalError(400, 'VALIDATION_ERROR', 'MISSING_REQUIRED_PARAMETER');
  const ok =
    body.webhook_id === PAYPAL_FAKE_WEBHOOK_ID &&
    body.auth_algo === 'SHA256withRSA' &&
    body.transmission_sig === signature(body.transmission_id!, body.transmission_time!, body.webhook_id, event);
  return { status: 200, json: { verification_status: ok ? 'SUCCESS' : 'FAILURE' } };
}

export function signedEvent(
  eventType: string,
  resource: Record<string, unknown>,
  tamper: boolean,
): InboundWebhookRequest {
  const id = `WH-${randomBytes(8).toString('hex').toUpperCase()}`;
  const body = JSON.stringify({
    id,
    event_version: '1.0',
    create_time: now(),
    resource_type: eventType.startsWith('PAYMENT.PAYOUTS-ITEM')
      ? 'payouts_item'
      : eventType.startsWith('PAYMENT.PAYOUTSBATCH')
        ? 'payouts'
        : 'capture',
    event_type: eventType,
    summary: eventType,
    resource,
  });
  const transmissionId = randomBytes(16).toString('hex');
  const time = new Date().toISOString();
  const sig = signature(transmissionId, time, PAYPAL_FAKE_WEBHOOK_ID, body);
  return {
    headers: {
      'content-type': 'application/json',
      'paypal-transmission-id': transmissionId,
      'paypal-transmission-time': time,
      'paypal-transmission-sig': sig,
      'paypal-cert-url': 'https://api.sandbox.paypal.com/v1/notifications/certs/CERT-360caa42-fca2a594-1d93a270',
      'paypal-auth-algo': 'SHA256withRSA',
    },
    rawBody: Buffer.from(tamper ? body.replace(/"value":"(\d+)/, '"value":"9$1') : body),
    url: 'http://localhost/webhooks',
  };
}
