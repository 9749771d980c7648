import { createHash } from 'node:crypto';
import { MOCK_GIFT_CARD_DEFINITION_ID, mockGiftCardService } from '../../connectors/gift-cards/mock-gift-card.ts';
import type { GiftCardConnector } from '../../connectors/gift-cards/gift-card-connector.ts';
import { withFaultHooks } from '../../observability/test-faults.ts';
import { refuseInProduction } from '../../errors/sandbox-only.ts';

export interface GiftCardServiceResource {
  type: 'gift-card-service';
  id: string;
  gift_card_service_definition_id: 'mock-gift-card' | 'qwikcilver-gift-card';
  display_name: string;
}

/**
 * A UUID (version 8, RFC 9562 "custom") derived from the merchant account id: the built-in
 * service needs no row, yet keeps the same id across processes and restarts.
 */
export function builtInGiftCardServiceId(merchantAccountId: string): string {
  const bytes = createHash('sha256').update(`gift-card-service:${MOCK_GIFT_CARD_DEFINITION_ID}:${merchantAccountId}`).digest().subarray(0, 16);
  bytes[6] = 0x80 | (bytes[6]! & 0x0f);
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The simulator with the crash-safety test's hooks on the calls that move money (a no-op unless armed). */
const connector = withFaultHooks(mockGiftCardService, MOCK_GIFT_CARD_DEFINITION_ID, { redeem: 'giftCardRedeem', refund: 'giftCardRefund', reverse: 'giftCardReverse', activate: 'giftCardActivate', issue: 'giftCardIssue' });

/**
 * Every merchant account has one gift card service: the built-in sandbox simulator. Configurable
 * services (`/gift-card-services`) would replace this lookup, not its callers.
 */
export function giftCardServiceOf(merchantAccountId: string): { resource: GiftCardServiceResource; connector: GiftCardConnector } {
  return {
    resource: { type: 'gift-card-service', id: builtInGiftCardServiceId(merchantAccountId), gift_card_service_definition_id: MOCK_GIFT_CARD_DEFINITION_ID, display_name: 'Mock gift card service' },
    connector,
  };
}

/**
 * The gift card service for a call that asks it anything (store, balance, activate, issue, redeem,
 * refund, reverse). It is the simulator, so production refuses every such call: no production gift
 * card service is integrated yet (docs/production.md).
 */
export function usableGiftCardService(ctx: { merchantAccountId: string; deps: { config: { environment: string } } }): ReturnType<typeof giftCardServiceOf> {
  refuseInProduction(ctx.deps.config, `The gift card service (${MOCK_GIFT_CARD_DEFINITION_ID})`, 'no production gift card service is integrated yet, so gift cards cannot be stored, checked, activated, issued or redeemed');
  return giftCardServiceOf(ctx.merchantAccountId);
}
