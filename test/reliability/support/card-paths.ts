import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { sandboxApplePayToken, sandboxGooglePayToken } from '../../../src/wallets/sandbox-tokens.ts';

/** The card data the leak suite sends; none of it may come back, be logged or be stored in clear. */
export const SECRETS = {
  visa: { number: '4000056655665556', securityCode: '087' },
  mastercard: { number: '5200828282828210', securityCode: '0391' },
  amex: { number: '378282246310005', securityCode: '0419' },
  giftCard: { number: '6036281000000000001', pin: '1234' },
};

export interface PathContext {
  merchantAccountId: string;
  paymentServiceId: string;
  /** A local target for vault forwarding. */
  forwardTarget: string;
  /** Sends a request (all scopes, the merchant account) and keeps the answer for the scan. */
  send(options: InjectOptions): Promise<LightMyRequestResponse>;
}

/** One way card data enters the API; `run` throws when a step does not answer as expected. */
export interface CardPath {
  name: string;
  run(ctx: PathContext): Promise<void>;
}

async function expectStatus(
  res: Promise<LightMyRequestResponse>,
  status: number,
  step: string,
): Promise<LightMyRequestResponse> {
  const answer = await res;
  if (answer.statusCode !== status)
    throw new Error(`${step}: expected ${status}, got ${answer.statusCode} ${answer.body.slice(0, 300)}`);
  return answer;
}

const card = (s: { number: string; securityCode: string }, expiration = '12/40') => ({
  method: 'card',
  number: s.number,
  expiration_date: expiration,
  security_code: s.securityCode,
});

/**
 * Every path that takes card data. Add an entry for a new one (payment links, wallets, reports,
 * real connectors): the scan then covers its answers, its log lines, its rows and its webhooks.
 */
export const CARD_PATHS: CardPath[] = [
  {
    name: 'payment method: store a card with its security code, get, list, update',
    async run(ctx) {
      const pm = (
        await expectStatus(
          ctx.send({ method: 'POST', url: '/payment-methods', payload: card(SECRETS.visa) }),
          201,
          'store',
        )
      ).json();
      await expectStatus(ctx.send({ method: 'GET', url: `/payment-methods/${pm.id}` }), 200, 'get');
      await expectStatus(ctx.send({ method: 'GET', url: '/payment-methods' }), 200, 'list');
      await expectStatus(
        ctx.send({ method: 'PUT', url: `/payment-methods/${pm.id}`, payload: { expiration_date: '11/41' } }),
        200,
        'update',
      );
    },
  },
  {
    name: 'checkout session fields, then a transaction paid by the session',
    async run(ctx) {
      const session = (
        await expectStatus(ctx.send({ method: 'POST', url: '/checkout/sessions', payload: {} }), 201, 'session')
      ).json();
      await expectStatus(
        ctx.send({
          method: 'PUT',
          url: `/checkout/sessions/${session.id}/fields`,
          payload: { payment_method: card(SECRETS.mastercard) },
        }),
        204,
        'fields',
      );
      await expectStatus(ctx.send({ method: 'GET', url: `/checkout/sessions/${session.id}` }), 200, 'get session');
      await expectStatus(
        ctx.send({
          method: 'POST',
          url: '/transactions',
          payload: { amount: 1500, currency: 'USD', payment_method: { method: 'checkout-session', id: session.id } },
        }),
        201,
        'pay',
      );
    },
  },
  {
    name: 'transaction with a raw card: authorize, capture, refund, events',
    async run(ctx) {
      const txn = (
        await expectStatus(
          ctx.send({
            method: 'POST',
            url: '/transactions',
            payload: { amount: 2500, currency: 'USD', payment_method: card(SECRETS.amex), store: true },
          }),
          201,
          'authorize',
        )
      ).json();
      await expectStatus(
        ctx.send({ method: 'POST', url: `/transactions/${txn.id}/capture`, payload: {} }),
        200,
        'capture',
      );
      await expectStatus(
        ctx.send({ method: 'POST', url: `/transactions/${txn.id}/refunds`, payload: { amount: 700 } }),
        201,
        'refund',
      );
      await expectStatus(ctx.send({ method: 'GET', url: `/transactions/${txn.id}/events` }), 200, 'events');
    },
  },
  {
    name: 'a stored card: a network token asked with the security code only, then a payment with the code only',
    async run(ctx) {
      const pm = (
        await expectStatus(
          ctx.send({
            method: 'POST',
            url: '/payment-methods',
            payload: { method: 'card', number: SECRETS.amex.number, expiration_date: '12/40' },
          }),
          201,
          'store',
        )
      ).json();
      const code = SECRETS.amex.securityCode;
      await expectStatus(
        ctx.send({
          method: 'POST',
          url: `/payment-methods/${pm.id}/network-tokens`,
          payload: { merchant_initiated: false, is_subsequent_payment: false, security_code: code },
        }),
        201,
        'network token',
      );
      await expectStatus(
        ctx.send({
          method: 'POST',
          url: '/transactions',
          payload: { amount: 600, currency: 'USD', payment_method: { method: 'id', id: pm.id, security_code: code } },
        }),
        201,
        'pay',
      );
    },
  },
  {
    name: 'payout to a raw card',
    async run(ctx) {
      const payout = {
        amount: 900,
        currency: 'USD',
        payment_service_id: ctx.paymentServiceId,
        payment_method: { method: 'card', number: SECRETS.visa.number, expiration_date: '12/40' },
      };
      const created = (
        await expectStatus(ctx.send({ method: 'POST', url: '/payouts', payload: payout }), 201, 'payout')
      ).json();
      await expectStatus(ctx.send({ method: 'GET', url: `/payouts/${created.id}` }), 200, 'get payout');
    },
  },
  {
    name: 'vault forwarding: the target echoes the card number back',
    async run(ctx) {
      const pm = (
        await expectStatus(
          ctx.send({ method: 'POST', url: '/payment-methods', payload: card(SECRETS.mastercard) }),
          201,
          'store',
        )
      ).json();
      const headers = {
        'x-vault-forward-url': ctx.forwardTarget,
        'x-vault-forward-http-method': 'POST',
        'x-vault-forward-payment-methods': pm.id,
      };
      await expectStatus(
        ctx.send({
          method: 'POST',
          url: '/vault-forward',
          headers,
          payload: { pan: '{{CARD_NUMBER_1}}', exp: '{{CARD_EXPIRATION_DATE_1}}' },
        }),
        200,
        'forward',
      );
    },
  },
  {
    name: 'gift cards: store, balances, pay with one',
    async run(ctx) {
      const gift = SECRETS.giftCard;
      await expectStatus(
        ctx.send({ method: 'POST', url: '/gift-cards', payload: { number: gift.number, pin: gift.pin } }),
        201,
        'store',
      );
      await expectStatus(
        ctx.send({
          method: 'POST',
          url: '/gift-cards/balances',
          payload: { items: [{ number: gift.number, pin: gift.pin }] },
        }),
        200,
        'balances',
      );
      await expectStatus(
        ctx.send({
          method: 'POST',
          url: '/transactions',
          payload: { amount: 500, currency: 'USD', gift_cards: [{ number: gift.number, pin: gift.pin, amount: 500 }] },
        }),
        201,
        'pay',
      );
    },
  },
  {
    name: 'digital wallets: an Apple Pay device token and a Google Pay card, decrypted by the server, authorized, captured',
    async run(ctx) {
      for (const provider of ['apple', 'google']) {
        await expectStatus(
          ctx.send({
            method: 'POST',
            url: '/digital-wallets',
            payload: {
              provider,
              merchant_name: 'Leak Shop',
              accept_terms_and_conditions: true,
              ...(provider === 'apple' ? { domain_names: ['leak.example.com'] } : {}),
            },
          }),
          201,
          `register ${provider}`,
        );
      }
      const apple = sandboxApplePayToken({ number: SECRETS.visa.number, expirationDate: '12/30', amount: 1200 });
      const paid = (
        await expectStatus(
          ctx.send({
            method: 'POST',
            url: '/transactions',
            payload: { amount: 1200, currency: 'USD', payment_method: { method: 'applepay', token: apple } },
          }),
          201,
          'apple pay',
        )
      ).json();
      await expectStatus(
        ctx.send({ method: 'POST', url: `/transactions/${paid.id}/capture`, payload: {} }),
        200,
        'capture',
      );
      const google = sandboxGooglePayToken({
        number: SECRETS.mastercard.number,
        expirationDate: '12/30',
        amount: 800,
        authMethod: 'PAN_ONLY',
      });
      await expectStatus(
        ctx.send({
          method: 'POST',
          url: '/transactions',
          payload: { amount: 800, currency: 'USD', payment_method: { method: 'googlepay', token: google } },
        }),
        201,
        'google pay',
      );
    },
  },
  {
    name: 'payment link page: an Apple Pay and a Google Pay token paid through the hosted page, and a sheet token minted',
    async run(ctx) {
      for (const provider of ['apple', 'google']) {
        // The wallets path may have registered them already: one wallet per provider (409 then).
        const res = await ctx.send({
          method: 'POST',
          url: '/digital-wallets',
          payload: { provider, merchant_name: 'Leak Shop', accept_terms_and_conditions: true },
        });
        if (res.statusCode !== 201 && res.statusCode !== 409)
          throw new Error(`register ${provider}: ${res.statusCode} ${res.body.slice(0, 300)}`);
      }
      const tokens = {
        applepay: sandboxApplePayToken({ number: SECRETS.visa.number, expirationDate: '12/30', amount: 1300 }),
        googlepay: sandboxGooglePayToken({ number: SECRETS.mastercard.number, expirationDate: '12/30' }),
      };
      for (const [method, token] of Object.entries(tokens)) {
        const link = (
          await expectStatus(
            ctx.send({
              method: 'POST',
              url: '/payment-links',
              payload: { amount: 1300, currency: 'USD', country: 'US' },
            }),
            201,
            'link',
          )
        ).json();
        const path = new URL(link.url).pathname;
        const page = await expectStatus(ctx.send({ method: 'GET', url: path }), 200, 'page');
        const headers = { 'x-payment-link-token': /data-token="([^"]*)"/.exec(page.body)![1]! };
        if (method === 'googlepay')
          await expectStatus(
            ctx.send({
              method: 'POST',
              url: `${path}/wallet-tokens`,
              headers,
              payload: { method, card: 'visa-approved' },
            }),
            201,
            'sheet token',
          );
        await expectStatus(
          ctx.send({ method: 'POST', url: `${path}/payments`, headers, payload: { method, token } }),
          200,
          `pay ${method}`,
        );
      }
    },
  },
  {
    name: 'refusals that carry card data: a bad expiry, malformed JSON, a declined duplicate',
    async run(ctx) {
      await expectStatus(
        ctx.send({
          method: 'POST',
          url: '/payment-methods',
          payload: { ...card(SECRETS.visa), expiration_date: '13/99' },
        }),
        422,
        'bad expiry',
      );
      await expectStatus(
        ctx.send({
          method: 'POST',
          url: '/payment-methods',
          headers: { 'content-type': 'application/json' },
          payload: `{"method":"card","number":"${SECRETS.visa.number}","security_code":"${SECRETS.visa.securityCode}",`,
        }),
        400,
        'malformed',
      );
      await expectStatus(
        ctx.send({
          method: 'POST',
          url: '/transactions',
          payload: { amount: 100, currency: 'XXX', payment_method: card(SECRETS.visa) },
        }),
        422,
        'bad currency',
      );
    },
  },
];
