import { describe, expect, it } from 'vitest';
import { connectIntentParams, connectRefundParams, connectRequestOptions, stripeConnectOf } from './stripe.connect.ts';

describe('stripe_connect options', () => {
  it('maps a destination charge to Stripe parameters, the fee in Stripe units', () => {
    const connect = stripeConnectOf({
      stripe_connect: {
        transfer_data_destination: 'acct_1A',
        on_behalf_of: 'acct_1A',
        application_fee_amount: 15,
        transfer_group: 'g1',
      },
    });
    expect(connectIntentParams(connect, 1000, 'USD')).toEqual({
      transfer_data: { destination: 'acct_1A' },
      on_behalf_of: 'acct_1A',
      application_fee_amount: 15,
      transfer_group: 'g1',
    });
    // ISK is two-decimal at Stripe: ours × 100, like the amount.
    expect(connectIntentParams(connect, 1000, 'ISK').application_fee_amount).toBe(1500);
  });

  it('a direct charge is the Stripe-Account header, nothing else', () => {
    const options = { stripe_connect: { stripe_account: 'acct_9', application_fee_amount: 0 } };
    expect(connectRequestOptions(options)).toEqual({ stripeAccount: 'acct_9' });
    expect(connectIntentParams(stripeConnectOf(options), 10, 'EUR')).toEqual({ application_fee_amount: 0 });
    expect(connectRequestOptions(null)).toEqual({});
    expect(stripeConnectOf({ error_on_requires_action: true })).toBeNull();
  });

  it.each([
    [{ application_fee_amount: 5 }, 'needs stripe_account or transfer_data_destination'],
    [{ stripe_account: 'acct_1', transfer_data_destination: 'acct_2' }, 'cannot be combined'],
    [{ transfer_data_destination: 'seller-1' }, 'acct_'],
    [{ stripe_account: 'acct_1', application_fee_amount: 1.5 }, 'non-negative integer'],
    [{ stripe_account: 'acct_1', application_fee_amount: '5' }, 'non-negative integer'],
    [{ transfer_group: 7 }, 'transfer_group'],
  ])('refuses %j', (connect, why) => {
    expect(() => stripeConnectOf({ stripe_connect: connect })).toThrow(why);
  });

  it('refunds a destination charge by reversing the transfer and refunding the fee; a direct charge refunds its fee only', () => {
    const destination = { transfer_data_destination: 'acct_1A', application_fee_amount: 15 };
    expect(connectRefundParams({ stripe_connect: destination })).toEqual({
      reverse_transfer: true,
      refund_application_fee: true,
    });
    expect(connectRefundParams({ stripe_connect: { transfer_data_destination: 'acct_1A' } })).toEqual({
      reverse_transfer: true,
    });
    expect(connectRefundParams({ stripe_connect: { stripe_account: 'acct_9', application_fee_amount: 5 } })).toEqual({
      refund_application_fee: true,
    });
    // A fee of 0 is no fee to refund; a platform's own charge has no Connect parameters.
    expect(connectRefundParams({ stripe_connect: { stripe_account: 'acct_9', application_fee_amount: 0 } })).toEqual(
      {},
    );
    expect(connectRefundParams(null)).toEqual({});
  });

  it('refuses a fee above the amount', () => {
    const connect = stripeConnectOf({ stripe_connect: { stripe_account: 'acct_1', application_fee_amount: 11 } });
    expect(() => connectIntentParams(connect, 10, 'USD')).toThrow('cannot exceed');
  });
});
