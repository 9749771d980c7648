import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchantAccount } from '../helpers/factories.ts';
import {
  createNonCardService,
  METHODS,
  startNonCardWorld,
  type NonCardMethod,
  type NonCardWorld,
} from '../helpers/non-card.ts';
import { createLink } from '../helpers/payment-links.ts';

/**
 * The hosted payment page pays the redirect methods with real connectors through their providers'
 * approval pages, over a real listening server and real HTTP (no browser is needed: the buyer's
 * steps are links, redirects and Refresh headers): the page offers the link's methods (PIX not:
 * docs/connectors.md, "PIX and the hosted page"), the buyer is sent to PayPal, the bank (iDEAL)
 * or GoCardless, comes back to our return address, then to the link's return page and on to the
 * merchant. A checkout session holds a card only (the public API's `CheckoutSessionPaymentMethod`
 * is a card): paying one with a redirect method is refused with its error body.
 */
let w: NonCardWorld;
let base: string;

/** A free port on 127.0.0.1, so that PUBLIC_URL can name the server before it listens. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  w = await startNonCardWorld({ PUBLIC_URL: base });
  await w.t.app.listen({ port, host: '127.0.0.1' });
});
afterAll(async () => w.close());

/** The page's HTML and the token its script sends, fetched as a browser does. */
async function openPage(url: string) {
  const res = await fetch(url);
  const html = await res.text();
  return { status: res.status, html, token: /data-token="([^"]*)"/.exec(html)?.[1] ?? '' };
}

const refreshTarget = (res: Response) => {
  const refresh = res.headers.get('refresh');
  expect(refresh, 'a Refresh header').toBeTruthy();
  return /url=(.*)$/.exec(refresh!)![1]!;
};

const PAGE_METHODS: Array<Exclude<NonCardMethod, 'pix'>> = ['paypal', 'ideal', 'gocardless'];
const DECISION = { paypal: '&decision=approve', ideal: '?answer=Y', gocardless: '?decision=complete' } as const;
const PAID = { paypal: 'authorization_succeeded', ideal: 'capture_succeeded', gocardless: 'capture_pending' } as const;

describe('the hosted payment page', () => {
  it.each(PAGE_METHODS)(
    'pays with %s through its approval page and returns the buyer to the merchant',
    async (method) => {
      const m = await createMerchantAccount(w.t.deps);
      await createNonCardService(w.t, m, method);
      const { currency, country } = METHODS[method];
      const link = await createLink(w.t, m, {
        currency,
        country,
        intent: method === 'paypal' ? 'authorize' : 'capture',
        return_url: 'https://shop.example/thanks',
      });
      expect(link.url.startsWith(`${base}/pay/`)).toBe(true);
      const page = await openPage(link.url);
      expect(page.status).toBe(200);
      expect(page.html).toContain(`data-method="${method}"`);
      const path = new URL(link.url).pathname;
      const paid = await fetch(`${base}${path}/payments`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-payment-link-token': page.token, origin: base },
        body: JSON.stringify({ method }),
      });
      expect(paid.status).toBe(200);
      const outcome = await paid.json();
      expect(outcome).toMatchObject({ outcome: 'pending', transaction_status: 'buyer_approval_pending' });

      // The provider's page approves and redirects to our return address on the listening server.
      const atProvider = await fetch(`${outcome.next_url}${DECISION[method]}`, { redirect: 'manual' });
      expect(atProvider.status).toBe(302);
      const back = atProvider.headers.get('location')!;
      expect(back.startsWith(`${base}/connector-returns/`)).toBe(true);
      const returned = await fetch(back);
      expect(returned.status).toBe(200);
      const onward = refreshTarget(returned);
      expect(new URL(onward).pathname).toBe(`${path}/return`);
      const linkReturn = await fetch(onward);
      expect(refreshTarget(linkReturn)).toContain(
        `https://shop.example/thanks?transaction_id=${outcome.transaction_id}`,
      );

      const txn = (
        await w.t.request({ method: 'GET', url: `/transactions/${outcome.transaction_id}`, merchantAccountId: m })
      ).json();
      expect(txn).toMatchObject({ method, status: PAID[method] });
      const after = (
        await w.t.request({ method: 'GET', url: `/payment-links/${link.id}`, merchantAccountId: m })
      ).json();
      expect(after.status).not.toBe('active');
    },
  );

  it('shows the redirect methods a service takes for the link, and not PIX (the page collects no CPF and shows no code)', async () => {
    const m = await createMerchantAccount(w.t.deps);
    await createNonCardService(w.t, m, 'ideal');
    await createNonCardService(w.t, m, 'pix');
    const eur = await openPage((await createLink(w.t, m, { currency: 'EUR', country: 'NL' })).url);
    expect(eur.html).toContain('data-method="ideal"');
    const brl = await openPage((await createLink(w.t, m, { currency: 'BRL', country: 'BR' })).url);
    expect(brl.html).not.toContain('data-method="pix"');
    // The page refuses a PIX sent to it anyway, before any call to dLocal.
    const before = w.dlocal.requests.length;
    const path = new URL((await createLink(w.t, m, { currency: 'BRL', country: 'BR' })).url).pathname;
    const page = await openPage(`${base}${path}`);
    const res = await fetch(`${base}${path}/payments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-payment-link-token': page.token, origin: base },
      body: JSON.stringify({ method: 'pix' }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      code: 'bad_request',
      details: [expect.objectContaining({ pointer: '/method', type: 'payment_method_not_offered' })],
    });
    expect(w.dlocal.requests.length).toBe(before);
    // So is a redirect method no service takes for the link (iDEAL for a BRL link).
    const ideal = await fetch(`${base}${path}/payments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-payment-link-token': page.token, origin: base },
      body: JSON.stringify({ method: 'ideal' }),
    });
    expect(ideal.status).toBe(400);
    expect((await ideal.json()).message).toContain('ideal is not offered for this payment link');
  });
});

describe('checkout sessions', () => {
  it('refuses to pay a checkout session holding no card (a redirect method is paid as itself) with its error body', async () => {
    const m = await createMerchantAccount(w.t.deps);
    await createNonCardService(w.t, m, 'paypal');
    const session = await w.t.request({
      method: 'POST',
      url: '/checkout/sessions',
      merchantAccountId: m,
      payload: { amount: 1000, currency: 'USD' },
    });
    expect(session.statusCode, session.body).toBe(201);
    const before = w.paypal.requests.length;
    const res = await w.t.request({
      method: 'POST',
      url: '/transactions',
      merchantAccountId: m,
      payload: {
        amount: 1000,
        currency: 'USD',
        country: 'US',
        payment_method: {
          method: 'checkout-session',
          id: session.json().id,
          redirect_url: 'https://shop.example/done',
        },
      },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      type: 'error',
      code: 'bad_request',
      status: 400,
      details: [expect.objectContaining({ pointer: '/id', type: 'checkout_session_no_card' })],
    });
    expect(w.paypal.requests.length).toBe(before);
  });
});
