import { currencyExponent } from '../../lib/currencies.ts';
import type { AntiFraudChargeback, AntiFraudTransactionUpdate } from '../anti-fraud/anti-fraud-connector.ts';

/**
 * The calls after a Decide (decision 0143), each on its endpoint of Riskified's API reference
 * (apiref.riskified.com, "Order Actions" and "Models"; the request models of Riskified's own SDKs,
 * github.com/Riskified/php_sdk `OrderWebhook/Model` and `Transport/AbstractTransport.php`):
 *
 * | update | endpoint | body |
 * |---|---|---|
 * | approved | `POST /decision` | `{ order: { id, decision: Decision Details, payment_details: { authorization_id } } }` |
 * | declined | `POST /checkout_denied` | `{ checkout: { id, payment_details: [{ authorization_error }] } }` |
 * | canceled | `POST /cancel` | `{ order: { id, cancelled_at, cancel_reason } }` |
 * | refunded | `POST /refund` | `{ order: { id, refunds: [Refund Details] } }` |
 * | chargeback | `POST /chargeback` | `{ order: { id, chargeback_details: Chargeback Details } }` |
 *
 * The order id is our transaction id, as in the Decide call. Amounts are in the currency's major
 * units, as numbers (Riskified's `double`); times are ISO 8601.
 */

const major = (amount: number, currency: string): number => {
  const exponent = currencyExponent(currency);
  return Number((amount / 10 ** exponent).toFixed(exponent));
};

export function riskifiedUpdate(
  transactionId: string,
  update: AntiFraudTransactionUpdate,
): { path: string; body: Record<string, unknown> } {
  switch (update.kind) {
    case 'approved':
      return {
        path: '/decision',
        body: {
          order: {
            id: transactionId,
            decision: {
              // Decision Details `external_status`: the merchant's final status of the order.
              external_status: 'approved',
              decided_at: update.at.toISOString(),
              amount: major(update.amount, update.currency),
              currency: update.currency,
            },
            ...(update.authorizationId ? { payment_details: { authorization_id: update.authorizationId } } : {}),
          },
        },
      };
    case 'declined':
      return {
        path: '/checkout_denied',
        body: {
          checkout: {
            id: transactionId,
            payment_details: [
              {
                authorization_error: {
                  created_at: update.at.toISOString(),
                  error_code: update.errorCode,
                  ...(update.message ? { message: update.message } : {}),
                },
              },
            ],
          },
        },
      };
    case 'canceled':
      return {
        path: '/cancel',
        body: { order: { id: transactionId, cancelled_at: update.at.toISOString(), cancel_reason: update.reason } },
      };
    case 'refunded':
      return {
        path: '/refund',
        body: {
          order: {
            id: transactionId,
            refunds: [
              {
                refund_id: update.refundId,
                amount: major(update.amount, update.currency),
                currency: update.currency,
                refunded_at: update.at.toISOString(),
                ...(update.reason ? { reason: update.reason } : {}),
              },
            ],
          },
        },
      };
  }
}

export function riskifiedChargeback(transactionId: string, chargeback: AntiFraudChargeback): Record<string, unknown> {
  return {
    order: {
      id: transactionId,
      chargeback_details: {
        id: chargeback.id,
        chargeback_at: chargeback.at.toISOString(),
        chargeback_amount: major(chargeback.amount, chargeback.currency),
        chargeback_currency: chargeback.currency,
        ...(chargeback.reasonCode ? { reason_code: chargeback.reasonCode } : {}),
        ...(chargeback.reasonDescription ? { reason_description: chargeback.reasonDescription } : {}),
        ...(chargeback.gateway ? { gateway: chargeback.gateway } : {}),
      },
    },
  };
}
