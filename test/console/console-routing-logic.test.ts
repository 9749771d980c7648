import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  describeFee,
  EMPTY_FEE,
  feeDraft,
  feeEntries,
  percentText,
  type FeeDraft,
} from '../../console/src/pages/fee-schedule.ts';
import { describeOutcome } from '../../console/src/pages/routing-rules.ts';
import {
  DEFAULT_STRATEGY,
  paramValue,
  STRATEGY_PARAMS,
  strategyFields,
  strategyOf,
} from '../../console/src/pages/routing-strategy.ts';
import { FeeEntrySchema } from '../../src/modules/payment-services/fee-schedule.schemas.ts';
import { OutcomeSchema } from '../../src/modules/flows/flows.schemas.ts';

/**
 * The console's route strategy fields and fee schedule form (console/src/pages/routing-strategy.ts,
 * fee-schedule.ts): what they send, the messages for values out of range, and that their limits
 * are the API's own (compared with the server's schemas, so a change there fails here).
 */

const names = new Map([
  ['a', 'Adyen EU'],
  ['b', 'Stripe'],
]);

describe('happy', () => {
  it('sends the chosen strategy with its own parameters only, the breaker, and step-up for cards', () => {
    expect(strategyFields(DEFAULT_STRATEGY, { stepUp: true })).toEqual({
      fields: { strategy: 'static', breaker: true, step_up_on_soft_decline: false },
    });
    expect(strategyFields({ ...DEFAULT_STRATEGY, strategy: 'success_rate' }, { stepUp: false })).toEqual({
      fields: { strategy: 'success_rate', min_samples: 20, window_minutes: 60, exploration_percent: 10, breaker: true },
    });
    expect(
      strategyFields(
        { ...DEFAULT_STRATEGY, strategy: 'least_cost', cost_margin_percent: '1,5', min_samples: '', breaker: false },
        { stepUp: true },
      ),
    ).toEqual({
      fields: {
        strategy: 'least_cost',
        window_minutes: 60,
        cost_margin_percent: 1.5,
        breaker: false,
        step_up_on_soft_decline: false,
      },
    });
  });

  it('describes a rule by its strategy and parameters', () => {
    const outcome = {
      payment_service_ids: ['a', 'b'],
      strategy: 'success_rate',
      min_samples: 50,
      window_minutes: 30,
      exploration_percent: 5,
      breaker: false,
      step_up_on_soft_decline: true,
    };
    expect(strategyOf(outcome)).toBe('success_rate');
    expect(strategyOf({ payment_service_ids: ['a'] })).toBe('static');
    expect(describeOutcome('route-transaction', outcome, names)).toBe(
      'Choose among Adyen EU, Stripe; strategy: best success rate; rates trusted after 50 payments; counted over 30 min; 5 % exploring; circuit breakers ignored; retried with 3-D Secure when the issuer asks for authentication',
    );
    expect(
      describeOutcome(
        'route-transaction',
        { payment_service_ids: ['a'], strategy: 'static', breaker: true, step_up_on_soft_decline: false },
        names,
      ),
    ).toBe('Route to Adyen EU; strategy: listed order; services with an open circuit skipped');
  });

  it('turns fee drafts into the entries the API takes, and stored entries back into drafts', () => {
    const drafts: FeeDraft[] = [
      { ...EMPTY_FEE, currency: 'eur', percent: '1.40', fixed_amount: '0.25' },
      { ...EMPTY_FEE, scheme: 'amex', percent: '2.9' },
      { ...EMPTY_FEE, card_type: 'debit', percent: '.5', fixed_amount: '10', fixed_currency: 'jpy' },
    ];
    const built = feeEntries(drafts);
    expect(built).toEqual({
      entries: [
        {
          scheme: null,
          card_type: null,
          currency: 'EUR',
          country: null,
          percent: '1.40',
          fixed_fee: { amount: 25, currency: 'EUR' },
        },
        { scheme: 'amex', card_type: null, currency: null, country: null, percent: '2.9', fixed_fee: null },
        {
          scheme: null,
          card_type: 'debit',
          currency: null,
          country: null,
          percent: '0.5',
          fixed_fee: { amount: 10, currency: 'JPY' },
        },
      ],
    });
    if (!('entries' in built)) throw new Error('unreachable');
    expect(built.entries.map(feeDraft)).toEqual([
      { ...EMPTY_FEE, currency: 'EUR', percent: '1.40', fixed_amount: '0.25' },
      { ...EMPTY_FEE, scheme: 'amex', percent: '2.9' },
      { ...EMPTY_FEE, card_type: 'debit', percent: '0.5', fixed_amount: '10', fixed_currency: 'JPY' },
    ]);
    expect(built.entries.map(describeFee)).toEqual(['1.40 % + €0.25', '2.9 %', '0.5 % + ¥10']);
  });
});

describe('errors', () => {
  it('says which value is out of range and what to enter', () => {
    const result = strategyFields(
      {
        ...DEFAULT_STRATEGY,
        strategy: 'success_rate',
        min_samples: '0',
        window_minutes: '2000',
        exploration_percent: '7.5',
      },
      { stepUp: true },
    );
    expect(result).toEqual({
      errors: {
        min_samples: '0 is out of range: enter from 1 to 100,000.',
        window_minutes: '2,000 is out of range: enter from 1 to 1,440.',
        exploration_percent: 'Enter a whole number from 0 to 50 (or leave it empty for the default).',
      },
    });
    const margin = STRATEGY_PARAMS.find((p) => p.key === 'cost_margin_percent')!;
    expect(paramValue(margin, 'half')).toEqual({
      error: 'Enter a number from 0 to 100, such as 0.5 (or leave it empty for the default).',
    });
    expect(paramValue(margin, '100.5')).toEqual({ error: '100.5 is out of range: enter from 0 to 100.' });
    // A parameter of another strategy is never checked (nor sent): the API would refuse it.
    expect(strategyFields({ ...DEFAULT_STRATEGY, strategy: 'static', min_samples: 'x' }, { stepUp: false })).toEqual({
      fields: { strategy: 'static', breaker: true },
    });
  });

  it('refuses fee entries the API would refuse, each with its entry named', () => {
    const result = feeEntries([
      { ...EMPTY_FEE, scheme: 'visa', percent: '0.2' },
      { ...EMPTY_FEE, percent: '100.5' },
      { ...EMPTY_FEE, currency: 'EURO', percent: '1' },
      { ...EMPTY_FEE, percent: '1', fixed_amount: '0.10' },
      { ...EMPTY_FEE, scheme: 'visa', percent: '0.3' },
      { ...EMPTY_FEE, currency: 'EUR', percent: '1', fixed_amount: '0.001' },
      { ...EMPTY_FEE, percent: '1.23456' },
    ]);
    expect(result).toEqual({
      errors: [
        null,
        'Entry 2: the percentage is a number from 0 to 100 with at most 4 decimals, such as 2.9 (0 for none).',
        'Entry 3: the currency is a 3-letter code such as EUR, or empty for any currency.',
        "Entry 4: give the fixed fee's currency (the entry applies to every currency), or set the entry's currency.",
        'Entry 5 matches the same payments as entry 1 (scheme visa, card type any, currency any, country any): give each combination one entry.',
        'Entry 6: the fixed fee is an amount in EUR such as 0.25, or empty for none.',
        'Entry 7: the percentage is a number from 0 to 100 with at most 4 decimals, such as 2.9 (0 for none).',
      ],
    });
  });
});

describe('the API limits', () => {
  it("uses the route outcome schema's own ranges for every strategy parameter", () => {
    for (const param of STRATEGY_PARAMS) {
      const schema = (
        OutcomeSchema.properties as Record<string, { minimum?: number; maximum?: number; type?: string }>
      )[param.key]!;
      expect([param.key, param.min, param.max, param.integer]).toEqual([
        param.key,
        schema.minimum,
        schema.maximum,
        schema.type === 'integer',
      ]);
    }
  });

  it("accepts a percentage exactly when the fee entry schema's pattern and the 100 limit do", () => {
    const pattern = new RegExp((FeeEntrySchema.properties.percent as { pattern?: string }).pattern!);
    const text = fc.oneof(
      fc.stringMatching(/^[0-9]{1,4}(\.[0-9]{0,6})?$/),
      fc.stringMatching(/^\.[0-9]{1,5}$/),
      fc.string({ maxLength: 8 }),
    );
    fc.assert(
      fc.property(text, (typed) => {
        const t = typed.trim().replace(',', '.');
        const shape = /^([0-9]*)(\.([0-9]{1,4}))?$/.exec(t);
        const writable = shape !== null && (shape[1] !== '' || shape[3] !== undefined) && Number(t) <= 100;
        const sent = percentText(typed);
        expect(sent !== null).toBe(writable);
        if (sent === null) return;
        expect(pattern.test(sent)).toBe(true);
        expect(Number(sent)).toBe(Number(t));
      }),
    );
  });
});
