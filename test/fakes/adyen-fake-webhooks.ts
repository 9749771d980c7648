import { createHmac } from 'node:crypto';

/**
 * Adyen's standard webhook as Adyen sends it (docs.adyen.com/development-resources/webhooks,
 * "Verify HMAC signatures"): a JSON `notificationItems` list whose every `NotificationRequestItem`
 * carries `additionalData.hmacSignature`, the base64 HMAC-SHA256, under the hex HMAC key, of
 * `pspReference:originalReference:merchantAccountCode:merchantReference:value:currency:eventCode:success`.
 */
export interface FakeNotificationItem {
  pspReference: string;
  originalReference?: string;
  merchantAccountCode: string;
  merchantReference: string;
  amount: { value: number; currency: string };
  eventCode: string;
  success: 'true' | 'false';
  reason?: string;
  additionalData?: Record<string, string>;
}

export function signedNotification(items: FakeNotificationItem[], hexKey: string): string {
  const signed = items.map((item) => {
    const text = [
      item.pspReference,
      item.originalReference ?? '',
      item.merchantAccountCode,
      item.merchantReference,
      item.amount.value,
      item.amount.currency,
      item.eventCode,
      item.success,
    ].join(':');
    const hmacSignature = createHmac('sha256', Buffer.from(hexKey, 'hex')).update(text, 'utf8').digest('base64');
    return {
      NotificationRequestItem: {
        ...item,
        eventDate: new Date().toISOString(),
        additionalData: { ...item.additionalData, hmacSignature },
      },
    };
  });
  return JSON.stringify({ live: 'false', notificationItems: signed });
}
