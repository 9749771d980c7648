import { defineGroup, flagSetting, integerSetting } from '../../lib/settings.ts';

/** Payments: checkout sessions, buyer approvals, sandbox settlement, network tokens. */

export const paymentSettings = defineGroup('Payments', {
  checkoutSessionTtlSeconds: integerSetting('CHECKOUT_SESSION_TTL_SECONDS', {
    default: 3600,
    min: 60,
    max: 24 * 3600,
    description:
      'Default lifetime of a checkout session (60 to 86400); `expires_in` in the create body overrides it, up to one day. Card data of an expired session is refused and purged',
  }),
  settlementDelaySeconds: integerSetting('SETTLEMENT_DELAY_SECONDS', {
    default: 60,
    min: 0,
    max: 7 * 24 * 3600,
    description:
      'Sandbox: seconds after each capture (or refund) before the settlement job records its settlement (0 to 604800)',
  }),
  sandboxAsyncDelaySeconds: integerSetting('SANDBOX_ASYNC_DELAY_SECONDS', {
    default: 10,
    min: 0,
    max: 24 * 3600,
    description:
      'Sandbox: seconds after which the simulated providers of the asynchronous methods report what their real ones report later (0 to 86400): a `mock-gocardless` or `mock-sepa` collection confirmed or failed (days at the real provider), a `mock-pix` code paid or expired; a chargeback follows after twice this (docs/sandbox.md, "Asynchronous methods")',
  }),
  buyerApprovalTimeoutSeconds: integerSetting('BUYER_APPROVAL_TIMEOUT_SECONDS', {
    default: 3600,
    min: 60,
    max: 7 * 24 * 3600,
    description:
      'How long a buyer has to approve a redirect payment or complete a sandbox 3DS challenge (60 to 604800); then the transaction ends `authorization_failed` with `buyer_approval_timedout_at`',
  }),
  networkTokensApiProvisioning: flagSetting(
    'NETWORK_TOKENS_API_PROVISIONING',
    false,
    '`true` or `false`. In `production`, allows `POST /payment-methods/{id}/network-tokens` (otherwise 403 `forbidden`); the sandbox always allows it',
  ),
});
