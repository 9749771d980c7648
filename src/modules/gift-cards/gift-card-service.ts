import { createHash } from 'node:crypto';
import { MOCK_GIFT_CARD_DEFINITION_ID, MockGiftCardService } from '../../connectors/gift-cards/mock-gift-card.ts';
import type { GiftCardConnector } from '../../connectors/gift-cards/gift-card-connector.ts';
import type { Executor } from '../../db/transaction.ts';
import { withFaultHooks } from '../../observability/test-faults.ts';
import { refuseInProduction } from '../../errors/sandbox-only.ts';
import { databaseLedger } from '../simulator-calls/simulator-calls.repo.ts';

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
  const bytes = createHash('sha256')
    .update(`gift-card-service:${MOCK_GIFT_CARD_DEFINITION_ID}:${merchantAccountId}`)
    .digest()
    .subarray(0, 16);
  bytes[6] = 0x80 | (bytes[6]! & 0x0f);
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The simulator of each database (its ledger is that database), built once per pool. */
const connectors = new WeakMap<Executor, GiftCardConnector>();

/**
 * The simulator with the crash-safety test's hooks on its calls (a no-op unless armed), noting
 * what it receives in `db` (`simulator_calls`): the pool, never one of our transactions.
 */
function connectorOf(db: Executor): GiftCardConnector {
  let connector = connectors.get(db);
  if (!connector) {
    connector = withFaultHooks(new MockGiftCardService(databaseLedger(db)), MOCK_GIFT_CARD_DEFINITION_ID, {
      redeem: 'giftCardRedeem',
      refund: 'giftCardRefund',
      reverse: 'giftCardReverse',
      activate: 'giftCardActivate',
      issue: 'giftCardIssue',
      status: 'giftCardStatus',
    });
    connectors.set(db, connector);
  }
  return connector;
}

/** The merchant account's gift card service as `Transaction.gift_card_service` shows it. */
export function giftCardServiceResource(merchantAccountId: string): GiftCardServiceResource {
  return {
    type: 'gift-card-service',
    id: builtInGiftCardServiceId(merchantAccountId),
    gift_card_service_definition_id: MOCK_GIFT_CARD_DEFINITION_ID,
    display_name: 'Mock gift card service',
  };
}

/**
 * Every merchant account has one gift card service: the built-in sandbox simulator. Configurable
 * services (`/gift-card-services`) would replace this lookup, not its callers. `db`: the pool.
 */
export function giftCardServiceOf(
  merchantAccountId: string,
  db: Executor,
): { resource: GiftCardServiceResource; connector: GiftCardConnector } {
  return { resource: giftCardServiceResource(merchantAccountId), connector: connectorOf(db) };
}

/**
 * The gift card service for a call that asks it anything (store, balance, activate, issue, redeem,
 * refund, reverse). It is the simulator, so production refuses every such call: no production gift
 * card service is integrated yet (docs/production.md).
 */
export function usableGiftCardService(ctx: {
  merchantAccountId: string;
  deps: { config: { environment: string }; db: Executor };
}): ReturnType<typeof giftCardServiceOf> {
  refuseInProduction(
    ctx.deps.config,
    `The gift card service (${MOCK_GIFT_CARD_DEFINITION_ID})`,
    'no production gift card service is integrated yet, so gift cards cannot be stored, checked, activated, issued or redeemed',
  );
  return giftCardServiceOf(ctx.merchantAccountId, ctx.deps.db);
}
