import type { TransactionRow } from '../../../db/schema-transactions.ts';
import { CARD_TESTING_SUSPECTED, type CardTestingStop } from '../../card-testing/card-testing.service.ts';
import type { Applied } from '../outcomes.ts';
import { intentOutcome, nextStatus } from '../transaction-status.ts';

/**
 * A payment the card-testing guard stopped (docs/risk.md, "Card-testing guard"): declined with
 * `flow_card_testing_suspected` before any payment service, saying which kind of source is throttled
 * (never its value).
 */
export const cardTestingStop =
  (stop: CardTestingStop) =>
  (row: TransactionRow): Applied => {
    const status = nextStatus(row.status, 'authorization_declined');
    return {
      attemptStatus: 'declined',
      eventName: 'transaction-updated-status',
      patch: {
        status,
        intent_outcome: intentOutcome(row.intent, status),
        error_code: CARD_TESTING_SUSPECTED,
        raw_response_description: `Card testing suspected: too many declined cards from this ${stop.source.replace('_', ' ')}; throttled for a while`,
      },
    };
  };
