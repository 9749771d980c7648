import { describe, expect, it } from 'vitest';
import { sepaOptionsBody } from './adyen-sepa.options.ts';

describe('happy', () => {
  it("turns AdyenSepaOptions into Adyen's Auto Rescue fields, with the order reference Auto Rescue needs", () => {
    expect(
      sepaOptionsBody(
        {
          autoRescue: true,
          maxDaysToRescue: 12,
          autoRescueSepaScenario: 'AutoRescueFailed',
          additionalData: { riskdata: 'x' },
          ownerName: 'A. Schmidt',
        },
        'ref1',
      ),
    ).toEqual({
      additionalData: {
        riskdata: 'x',
        autoRescue: 'true',
        maxDaysToRescue: '12',
        autoRescueScenario: 'AutoRescueFailed',
      },
      merchantOrderReference: 'ref1',
    });
    expect(sepaOptionsBody(null, 'ref1')).toEqual({});
    expect(sepaOptionsBody({ ownerName: 'A. Schmidt' }, 'ref1')).toEqual({});
  });
});

describe('errors', () => {
  it.each([
    [{ maxDaysToRescue: 49 }, /1 to 48/],
    [{ maxDaysToRescue: 2.5 }, /1 to 48/],
    [{ autoRescue: 'yes' }, /boolean/],
    [{ autoRescueSepaScenario: 'Maybe' }, /one of/],
    [{ additionalData: { a: 1 } }, /additionalData.a/],
    [{ iban: 'DE89370400440532013000' }, /iban is not a field/],
  ])('refuses %j before any call', (options, message) => {
    expect(() => sepaOptionsBody(options as Record<string, unknown>, 'r')).toThrow(message);
  });
});
