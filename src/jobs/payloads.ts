import { Type, type Static } from 'typebox';

const MerchantAccountId = Type.String({ minLength: 1 });
const Id = Type.String({ format: 'uuid' });

/**
 * Every job's name (the stem of its `<name>.job.ts`) and payload schema. A service enqueues a job
 * by its name (`deps.queue.enqueue(tx, 'settle-transaction', payload)`), so it never imports the
 * job file, which imports the service it runs. This file imports nothing of ours for that reason.
 * Payloads carry ids only: never card data, secrets or whole resources.
 */
export const JOB_PAYLOADS = {
  'analyze-embedded-database': Type.Object({}),
  'anchor-audit-chains': Type.Object({}),
  /** Closes the monitoring incident of a card-testing throttle when its cool-down ends. */
  'close-card-testing-incident': Type.Object({ merchant_account_id: MerchantAccountId, incident_id: Id }),
  'deliver-webhook': Type.Object({ merchant_account_id: MerchantAccountId, delivery_id: Id }),
  'evaluate-monitoring-metrics': Type.Object({}),
  'expire-three-ds-challenges': Type.Object({}),
  'expire-payment-links': Type.Object({}),
  'purge-expired-checkout-sessions': Type.Object({}),
  'purge-finished-jobs': Type.Object({}),
  'purge-idempotency-keys': Type.Object({}),
  'purge-inbound-webhook-events': Type.Object({}),
  'purge-webhook-events': Type.Object({}),
  'purge-monitoring-history': Type.Object({}),
  'purge-rate-limit-windows': Type.Object({}),
  'purge-routing-stats': Type.Object({}),
  'purge-security-codes': Type.Object({}),
  'purge-velocity-counts': Type.Object({}),
  'purge-wallet-token-uses': Type.Object({}),
  'purge-dashboard-sessions': Type.Object({}),
  'reconcile-attempts': Type.Object({}),
  'reconcile-gift-cards': Type.Object({}),
  'reconcile-payment-service-tokens': Type.Object({}),
  'reconcile-payouts': Type.Object({}),
  'rekey-idempotency-keys': Type.Object({}),
  /** Gives back the rest of one gift card redemption whose reversal was recorded `pending` (a cancel). */
  'reverse-gift-card-redemption': Type.Object({ merchant_account_id: MerchantAccountId, redemption_id: Id }),
  'seal-merchant-account-secrets': Type.Object({}),
  /**
   * One report to the anti-fraud service that decided on a transaction (decision 0143): the
   * authorization's outcome (`approved`, `declined`), a void (`canceled`), one refund (`refund_id`)
   * or a chargeback.
   */
  'send-anti-fraud-update': Type.Object({
    merchant_account_id: MerchantAccountId,
    transaction_id: Id,
    update: Type.Union([
      Type.Literal('approved'),
      Type.Literal('declined'),
      Type.Literal('canceled'),
      Type.Literal('refunded'),
      Type.Literal('chargeback'),
    ]),
    refund_id: Type.Optional(Id),
  }),
  'run-account-updater': Type.Object({ merchant_account_id: MerchantAccountId, account_updater_job_id: Id }),
  /** One capture's settlement (`capture_id`: its attempt; without it, the captured amount not settled yet), or one refund's (`refund_id`). */
  'settle-transaction': Type.Object({
    merchant_account_id: MerchantAccountId,
    transaction_id: Id,
    refund_id: Type.Optional(Id),
    capture_id: Type.Optional(Id),
  }),
  /**
   * One event a sandbox simulator's provider reports later about a payment (`index` of the events
   * of that step: the transaction waiting in `status`, for the capture `capture_id` or the payment itself).
   */
  'deliver-simulated-event': Type.Object({
    merchant_account_id: MerchantAccountId,
    transaction_id: Id,
    status: Type.Union([Type.Literal('buyer_approval_pending'), Type.Literal('capture_pending')]),
    capture_id: Type.Optional(Id),
    index: Type.Integer({ minimum: 0, maximum: 15 }),
  }),
  'vacuum-embedded-database': Type.Object({}),
  /**
   * One settlement ingestion run of a payment service (docs/settlements.md): `since` starts the
   * provider's listing over from that instant; `report` reads one report the provider announced.
   */
  'ingest-settlements': Type.Object({
    merchant_account_id: MerchantAccountId,
    payment_service_id: Id,
    since: Type.Optional(Type.String({ format: 'date-time' })),
    report: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
  }),
  'schedule-settlement-ingestions': Type.Object({}),
  'generate-report': Type.Object({ merchant_account_id: MerchantAccountId, report_execution_id: Id }),
  'schedule-reports': Type.Object({}),
  'purge-report-executions': Type.Object({}),
  'void-late-authorization': Type.Object({
    merchant_account_id: MerchantAccountId,
    transaction_id: Id,
    attempt_id: Id,
  }),
  /** `attempt_id`: the authorize attempt whose late capture is refunded. */
  'refund-late-capture': Type.Object({
    merchant_account_id: MerchantAccountId,
    transaction_id: Id,
    attempt_id: Id,
  }),
} as const;

export type JobName = keyof typeof JOB_PAYLOADS;
export type JobPayload<N extends JobName> = Static<(typeof JOB_PAYLOADS)[N]>;
