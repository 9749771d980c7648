import { describe, expect, it } from 'vitest';
import {
  conditionsMatch,
  hasCondition,
  maskCardNumber,
  type ComparableFacts,
  type StoredConditions,
} from './scenario-conditions.ts';

const NONE: StoredConditions = {
  first_name: null,
  last_name: null,
  email_address: null,
  amount: null,
  external_identifier: null,
  card_fingerprint: null,
};
const FACTS: ComparableFacts = {
  amount: 1299,
  cardFingerprint: 'fp-visa',
  externalIdentifier: 'order-1',
  buyer: { firstName: 'Ada', lastName: 'Lovelace', emailAddress: 'Ada@Example.com' },
};

describe('conditionsMatch', () => {
  it('matches when every set condition equals the fact', () => {
    expect(conditionsMatch({ ...NONE, amount: 1299 }, FACTS)).toBe(true);
    expect(conditionsMatch({ ...NONE, amount: '1299' }, FACTS)).toBe(true);
    expect(
      conditionsMatch(
        {
          ...NONE,
          amount: 1299,
          card_fingerprint: 'fp-visa',
          external_identifier: 'order-1',
          first_name: 'Ada',
          last_name: 'Lovelace',
        },
        FACTS,
      ),
    ).toBe(true);
  });

  it('refuses a scenario when any one set condition differs', () => {
    expect(conditionsMatch({ ...NONE, amount: 1300 }, FACTS)).toBe(false);
    expect(conditionsMatch({ ...NONE, amount: 1299, card_fingerprint: 'fp-other' }, FACTS)).toBe(false);
    expect(conditionsMatch({ ...NONE, external_identifier: 'order-2' }, FACTS)).toBe(false);
    expect(conditionsMatch({ ...NONE, first_name: 'ada' }, FACTS)).toBe(false);
    expect(conditionsMatch({ ...NONE, last_name: 'Byron' }, FACTS)).toBe(false);
  });

  it('compares e-mail addresses ignoring case, names exactly', () => {
    expect(conditionsMatch({ ...NONE, email_address: 'ada@EXAMPLE.COM' }, FACTS)).toBe(true);
    expect(conditionsMatch({ ...NONE, email_address: 'bob@example.com' }, FACTS)).toBe(false);
  });

  it('never matches a set condition against a missing fact', () => {
    const bare: ComparableFacts = { amount: 1299, cardFingerprint: null, externalIdentifier: null, buyer: null };
    expect(conditionsMatch({ ...NONE, card_fingerprint: 'fp-visa' }, bare)).toBe(false);
    expect(conditionsMatch({ ...NONE, external_identifier: 'order-1' }, bare)).toBe(false);
    expect(conditionsMatch({ ...NONE, first_name: 'Ada' }, bare)).toBe(false);
    expect(conditionsMatch({ ...NONE, email_address: 'ada@example.com' }, bare)).toBe(false);
    expect(conditionsMatch({ ...NONE, amount: 1299 }, bare)).toBe(true);
  });
});

describe('hasCondition', () => {
  it('needs one value that is neither null nor absent', () => {
    expect(hasCondition({})).toBe(false);
    expect(hasCondition({ amount: null, first_name: undefined })).toBe(false);
    expect(hasCondition({ amount: 0 })).toBe(true);
  });
});

describe('maskCardNumber', () => {
  it('keeps the first 6 and last 4 digits, one star per hidden digit', () => {
    expect(maskCardNumber('4111111111111111')).toBe('411111******1111');
    expect(maskCardNumber('378282246310005')).toBe('378282*****0005');
    expect(maskCardNumber('6011000990139424123')).toBe('601100*********4123');
  });
});
