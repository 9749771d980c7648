import { privateTargetsSetting } from '../../lib/private-targets.config.ts';
import { defineGroup, integerSetting } from '../../lib/settings.ts';

/** Webhooks: the addresses our deliveries may reach, and how long providers' webhooks are remembered. */

export const webhookSettings = defineGroup('Webhooks', {
  webhookAllowPrivateUrls: privateTargetsSetting('WEBHOOK_ALLOW_PRIVATE_URLS', 'webhook subscriptions'),
  inboundWebhookRetentionDays: integerSetting('INBOUND_WEBHOOK_RETENTION_DAYS', {
    default: 45,
    min: 31,
    max: 3650,
    description:
      'Days a provider webhook\'s event row (what drops a replayed event) is kept before the hourly purge (31 to 3650: Adyen resends a webhook for up to 30 days; docs/connectors.md, "Inbound provider webhooks")',
  }),
});
