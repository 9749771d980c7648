import { describe, expect, it } from 'vitest';
import type { AuthorizeRequest } from './connector.ts';
import { paymentBody as adyenBody } from './adyen/adyen.requests.ts';
import { paymentBody as checkoutBody } from './checkout/checkout.payments.ts';
import { createPaymentIntent } from './stripe/stripe-payments.ts';
import type { Stripe } from './stripe/stripe.client.ts';

/**
 * Step-up authentication (docs/routing.md): how each connector whose provider authenticates cards
 * itself asks it for 3DS when `requestThreeDs` is set (Stripe `request_three_d_secure`, Adyen
 * `authenticationData.attemptAuthentication`, Checkout.com `3ds.enabled`), and that nothing is
 * asked without it or for a merchant-initiated payment.
 */

const request = (over: Partial<AuthorizeRequest> = {}): AuthorizeRequest => ({
  idempotencyKey: '0190a0a0-0000-7000-8000-000000000001',
  credentials: {},
  options: null,
  reference: 'ref1',
  amount: 1000,
  currency: 'EUR',
  country: 'DE',
  intent: 'authorize',
  instrument: {
    kind: 'card',
    number: '4000000000003220',
    expirationDate: '12/40',
    securityCode: '123',
    scheme: 'visa',
  },
  merchantInitiated: false,
  isSubsequentPayment: false,
  paymentSource: 'ecommerce',
  threeDSecure: null,
  approvalBaseUrl: 'https://svc.example',
  merchantAccountId: 'default',
  redirectUrl: 'https://shop.example/return',
  ...over,
});

/** A Stripe client that keeps the PaymentIntent parameters it was given. */
function fakeStripe() {
  const sent: Array<Record<string, unknown>> = [];
  const stripe = {
    paymentMethods: { create: async () => ({ id: 'pm_1' }) },
    paymentIntents: {
      create: async (params: Record<string, unknown>) => {
        sent.push(params);
        return { id: 'pi_1' };
      },
    },
  } as unknown as Stripe;
  return { stripe, sent };
}

describe('happy', () => {
  it('Adyen: attemptAuthentication always', () => {
    expect(adyenBody(request({ requestThreeDs: true }), 'Shop').authenticationData).toEqual({
      attemptAuthentication: 'always',
    });
  });

  it('Checkout.com: 3ds.enabled with its return addresses, though the service does not ask for 3DS', () => {
    const body = checkoutBody(request({ requestThreeDs: true }));
    expect(body['3ds']).toEqual({ enabled: true });
    expect(body.success_url).toEqual(expect.stringContaining('/connector-returns/default/'));
  });

  it('Stripe: request_three_d_secure any, with the return_url', async () => {
    const { stripe, sent } = fakeStripe();
    await createPaymentIntent(stripe, request({ requestThreeDs: true }), false);
    expect(sent[0]).toMatchObject({
      return_url: 'https://shop.example/return',
      payment_method_options: { card: { request_three_d_secure: 'any' } },
    });
  });
});

describe('not asked', () => {
  it('without requestThreeDs, or for a merchant-initiated payment', async () => {
    for (const over of [{}, { requestThreeDs: true, merchantInitiated: true }]) {
      expect(adyenBody(request(over), 'Shop').authenticationData).toBeUndefined();
      expect(checkoutBody(request(over))['3ds']).toBeUndefined();
      const { stripe, sent } = fakeStripe();
      await createPaymentIntent(stripe, request(over), false);
      expect(sent[0]!.payment_method_options).toBeUndefined();
    }
  });
});
