import { describe, expect, it } from 'vitest';
import type { PaymentMethodRow } from '../../db/schema.ts';
import { updatePatch } from './payment-method-update.ts';

const row = (overrides: Partial<PaymentMethodRow> = {}) =>
  ({
    scheme: 'visa',
    expiration_date: '12/39',
    scheme_transaction_id: null,
    scheme_transaction_id_scheme: null,
    transaction_link_id: null,
    ...overrides,
  }) as PaymentMethodRow;

describe('updatePatch', () => {
  it("fills the scheme from the card's when an id comes without one and none is stored", () => {
    expect(updatePatch(row(), { scheme_transaction_id: 'abc' })).toEqual({
      scheme_transaction_id: 'abc',
      scheme_transaction_id_scheme: 'visa',
    });
    expect(updatePatch(row({ scheme_transaction_id_scheme: 'amex' }), { scheme_transaction_id: 'abc' })).toEqual({
      scheme_transaction_id: 'abc',
    });
    expect(updatePatch(row(), { scheme_transaction_id: 'abc', scheme_transaction_id_scheme: null })).toEqual({
      scheme_transaction_id: 'abc',
    });
  });

  it('null clears the id with its scheme, and the link id; an expiry of null changes nothing', () => {
    const stored = row({
      scheme_transaction_id: 'abc',
      scheme_transaction_id_scheme: 'visa',
      transaction_link_id: 'l',
    });
    expect(
      updatePatch(stored, {
        scheme_transaction_id: null,
        scheme_transaction_id_scheme: 'amex',
        transaction_link_id: null,
        expiration_date: null,
      }),
    ).toEqual({ scheme_transaction_id: null, scheme_transaction_id_scheme: null, transaction_link_id: null });
  });

  it('leaves out fields whose value does not change', () => {
    expect(updatePatch(row(), { expiration_date: '12/39', transaction_link_id: null })).toEqual({});
    expect(updatePatch(row(), { expiration_date: '01/40' })).toEqual({ expiration_date: '01/40' });
  });
});
