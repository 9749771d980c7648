import { privateTargetsSetting } from '../../lib/private-targets.config.ts';
import { defineGroup, integerSetting } from '../../lib/settings.ts';

/** Webhooks: the addresses our deliveries may reach, and how long events and providers' webhooks are remembered. */

export const webhookSettings = defineGroup('Webhooks', {
  webhookAllowPrivateUrls: privateTargetsSetting('WEBHOOK_ALLOW_PRIVATE_URLS', 'webhook subscriptions'),
  webhookEventRetentionDays: integerSetting('WEBHOOK_EVENT_RETENTION_DAYS', {
    default: 30,
    min: 3,
    max: 3650,
    description:
      'Days an event sent to webhook subscriptions is kept, with its deliveries and their attempts, before the hourly purge (3 to 3650; a delivery still pending is kept until it ends). Older deliveries leave `GET /webhook-subscriptions/{id}/deliveries` and can no longer be sent again (docs/webhooks.md, "Retention")',
  }),
  inboundWebhookRetentionDays: integerSetting('INBOUND_WEBHOOK_RETENTION_DAYS', {
    default: 45,
    min: 31,
    max: 3650,
    description:
      'Days a provider webhook\'s event row (what drops a replayed event) is kept before the hourly purge (31 to 3650: Adyen resends a webhook for up to 30 days; docs/connectors.md, "Inbound provider webhooks")',
  }),
});
