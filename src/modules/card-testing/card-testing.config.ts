import { defineGroup, flagSetting, integerSetting } from '../../lib/settings.ts';
import { MAX_DISTINCT_CARDS_THRESHOLD } from '../velocity/velocity-window.ts';

/** The card-testing guard (docs/risk.md, "Card-testing guard"; decision 0138). */

export const cardTestingSettings = defineGroup('Card-testing guard', {
  cardTestingGuardEnabled: flagSetting(
    'CARD_TESTING_GUARD_ENABLED',
    true,
    '`true` or `false`. Whether a source (IP address, buyer, checkout session, embed token) whose declined attempts used too many distinct cards is throttled: its payments are declined with `flow_card_testing_suspected` before any payment service',
  ),
  cardTestingWindowMinutes: integerSetting('CARD_TESTING_WINDOW_MINUTES', {
    default: 10,
    min: 1,
    max: 1440,
    description: 'The sliding window (whole minutes) over which a source’s declined cards are counted (1 to 1440)',
  }),
  cardTestingDistinctCards: integerSetting('CARD_TESTING_DISTINCT_CARDS', {
    default: 10,
    min: 2,
    max: MAX_DISTINCT_CARDS_THRESHOLD,
    description: `Distinct declined cards from one source within the window that throttle it: the next attempt is stopped (2 to ${MAX_DISTINCT_CARDS_THRESHOLD})`,
  }),
  cardTestingMaxAmount: integerSetting('CARD_TESTING_MAX_AMOUNT', {
    default: 0,
    min: 0,
    max: 1_000_000_000_000,
    description:
      'Small-amount ceiling in minor units: only declines of attempts at or under it count (0: every amount counts)',
  }),
  cardTestingBlockMinutes: integerSetting('CARD_TESTING_BLOCK_MINUTES', {
    default: 30,
    min: 1,
    max: 1440,
    description: 'How long a throttled source stays throttled (cool-down, whole minutes; 1 to 1440)',
  }),
});
