import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { subscribeToEvents } from '../../../../test/helpers/event-subscription.ts';
import { createLink, openPage, payOnPage } from '../../../../test/helpers/payment-links.ts';
import { merchantWithMockCard } from '../../../../test/helpers/transactions.ts';

let t: TestApp;
let merchant: string;
let secure: string;
beforeAll(async () => {
  t = await buildTestApp();
  ({ merchantAccountId: merchant } = await merchantWithMockCard(t));
  // A paid link's webhook events are read: written only for a merchant account with a subscription.
  await subscribeToEvents(t, merchant);
  ({ merchantAccountId: secure } = await merchantWithMockCard(t, { three_d_secure_enabled: true }));
});
afterAll(async () => t.close());

const linkOf = async (id: string, m = merchant) =>
  (await t.request({ method: 'GET', url: `/payment-links/${id}`, merchantAccountId: m })).json();
const transactionsOf = async (id: string, m = merchant) =>
  (await t.request({ method: 'GET', url: `/transactions?payment_link_id=${id}`, merchantAccountId: m })).json().items;

describe('happy', () => {
  it("shows the branded page in the link's locale with a strict CSP", async () => {
    const link = await createLink(t, merchant, {
      locale: 'es',
      merchant_name: 'Tienda <Ada>',
      merchant_color: '#FF5733',
      merchant_message: 'Gracias',
      cart_items: [{ name: 'Té verde', quantity: 2, unit_amount: 500 }],
      merchant_terms_and_conditions_url: 'https://shop.example/terms',
    });
    const { res } = await openPage(t, link.url);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<html lang="es">');
    expect(res.body).toContain('Tienda &#60;Ada&#62;');
    expect(res.body).toContain('Pagar con tarjeta');
    expect(res.body).toContain('Té verde');
    expect(res.body).toMatch(/10,00\s?US\$/);
    expect(res.body).toContain('href="https://shop.example/terms"');
    const csp = res.headers['content-security-policy'] as string;
    const nonce = /'nonce-([^']+)'/.exec(csp)![1];
    expect(csp).toContain("script-src 'self';");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(res.body).toContain(`<style nonce="${nonce}">:root{--accent:#FF5733`);
    expect(res.body).not.toMatch(/<script(?![^>]*src="\/pay-assets\/(?:card-checks|page)\.js")/);
    expect(res.headers).toMatchObject({
      'x-frame-options': 'DENY',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
    });
  });

  it.each([
    ['en', 'Pay by card'],
    ['en-GB', 'Your basket'],
    ['es', 'Pagar con tarjeta'],
    ['pt', 'A sua encomenda'],
    ['pt-BR', 'Seu pedido'],
    ['pt-PT', 'A sua encomenda'],
    ['fr', 'Pay by card'],
  ])('renders locale %s from its translation file (others fall back)', async (locale, text) => {
    const link = await createLink(t, merchant, {
      locale,
      cart_items: [{ name: 'Tea', quantity: 1, unit_amount: 1000 }],
    });
    expect((await openPage(t, link.url)).res.body).toContain(text);
  });

  it('pays with an approving card: the link completes, the buyer goes to return_url, the transaction carries the link', async () => {
    const link = await createLink(t, merchant, {
      return_url: 'https://shop.example/done?o=1',
      external_identifier: 'order-7',
      metadata: { order: '7' },
      intent: 'capture',
      cart_items: [{ name: 'Tea', quantity: 1, unit_amount: 1000 }],
    });
    const res = await payOnPage(t, link.url, '4111111111111111', { cardholder_name: 'Ada Lovelace' });
    expect(res.statusCode, res.body).toBe(200);
    const outcome = res.json();
    expect(outcome).toMatchObject({ outcome: 'paid', transaction_status: 'capture_succeeded' });
    expect(outcome.next_url).toBe(
      `https://shop.example/done?o=1&transaction_id=${outcome.transaction_id}&transaction_status=capture_succeeded`,
    );
    expect(await linkOf(link.id)).toMatchObject({ status: 'completed' });
    const [transaction] = await transactionsOf(link.id);
    expect(transaction).toMatchObject({
      id: outcome.transaction_id,
      amount: 1000,
      currency: 'USD',
      country: 'US',
      external_identifier: 'order-7',
      buyer: { display_name: 'Ada Lovelace' },
    });
    const full = (
      await t.request({ method: 'GET', url: `/transactions/${outcome.transaction_id}`, merchantAccountId: merchant })
    ).json();
    expect(full).toMatchObject({
      metadata: { order: '7' },
      cart_items: [{ name: 'Tea' }],
      intent: 'capture',
      checkout_session_id: expect.any(String),
    });
    expect((await openPage(t, link.url)).res.body).toContain('This payment link has already been used.');
    const kinds = (
      await t.deps.db
        .selectFrom('events')
        .select('payload')
        .where('resource_id', '=', link.id)
        .where('kind', '=', 'payment-link.updated')
        .orderBy('created_at')
        .orderBy('id')
        .execute()
    ).map((e) => (e.payload as { status: string }).status);
    expect(kinds).toEqual(['processing', 'completed']);
  });

  it('declines with a human message and lets the buyer pay again', async () => {
    const link = await createLink(t, merchant, { locale: 'en' });
    const declined = await payOnPage(t, link.url, '4000000000009995');
    expect(declined.json()).toMatchObject({
      outcome: 'declined',
      transaction_status: 'authorization_declined',
      page_message: 'Your card was declined: there are not enough funds. Try another card.',
      next_url: null,
    });
    expect((await linkOf(link.id)).status).toBe('active');
    expect((await payOnPage(t, link.url)).json()).toMatchObject({ outcome: 'paid' });
    expect((await transactionsOf(link.id)).map((tx: { status: string }) => tx.status)).toEqual([
      'authorization_succeeded',
      'authorization_declined',
    ]);
  });

  it('goes through the 3DS challenge page and back, then to return_url', async () => {
    const link = await createLink(t, secure, { return_url: 'https://shop.example/back' });
    const outcome = (await payOnPage(t, link.url, '4000000000003220')).json();
    expect(outcome).toMatchObject({ outcome: 'pending', transaction_status: 'buyer_approval_pending' });
    expect((await linkOf(link.id, secure)).status).toBe('processing');
    const challenge = new URL(outcome.next_url).pathname;
    expect(challenge).toMatch(/^\/sandbox\/challenges\//);
    const done = await t.app.inject({ method: 'POST', url: `${challenge}/complete` });
    const back = new URL(/^0;url=(.*)$/.exec(done.headers.refresh as string)![1]!);
    expect(back.pathname).toBe(`${new URL(link.url).pathname}/return`);
    const returned = await t.app.inject({ method: 'GET', url: `${back.pathname}${back.search}` });
    expect(returned.statusCode).toBe(200);
    expect(returned.headers.refresh).toBe(
      `0;url=https://shop.example/back?transaction_id=${outcome.transaction_id}&transaction_status=authorization_succeeded`,
    );
    expect(returned.body).toContain('Payment successful');
    expect((await linkOf(link.id, secure)).status).toBe('completed');
  });

  it('shows the form again with the reason when the challenge fails', async () => {
    const link = await createLink(t, secure);
    const outcome = (await payOnPage(t, link.url, '4000000000003220')).json();
    const failed = await t.app.inject({ method: 'POST', url: `${new URL(outcome.next_url).pathname}/fail` });
    const back = new URL(/^0;url=(.*)$/.exec(failed.headers.refresh as string)![1]!);
    const returned = await t.app.inject({ method: 'GET', url: back.pathname });
    expect(returned.body).toContain('Your bank could not confirm it was you.');
    expect(returned.body).toContain('id="pay-form"');
    expect((await linkOf(link.id, secure)).status).toBe('active');
  });

  it('offers a redirect method and goes through its approval page and back, then to return_url', async () => {
    const m = (await merchantWithMockCard(t, { accepted_currencies: ['EUR'], accepted_countries: ['NL'] }))
      .merchantAccountId;
    const bank = await t.request({
      method: 'POST',
      url: '/payment-services',
      merchantAccountId: m,
      payload: {
        display_name: 'Bank',
        payment_service_definition_id: 'mock-paybybank',
        fields: [{ key: 'merchant_id', value: 'pbb' }],
        accepted_currencies: ['EUR'],
        accepted_countries: ['NL'],
      },
    });
    expect(bank.statusCode, bank.body).toBe(201);
    const link = await createLink(t, m, { currency: 'EUR', country: 'NL', return_url: 'https://shop.example/bank' });
    const { res, path, token } = await openPage(t, link.url);
    expect(res.body).toMatch(/<button type="button" class="alt" data-method="paybybank">Pay with [^<]+<\/button>/);
    const outcome = (
      await t.app.inject({
        method: 'POST',
        url: `${path}/payments`,
        headers: { 'x-payment-link-token': token },
        payload: { method: 'paybybank' },
      })
    ).json();
    expect(outcome).toMatchObject({
      outcome: 'pending',
      transaction_status: 'buyer_approval_pending',
      next_url: expect.stringMatching(/\/sandbox\/approvals\//),
    });
    const approved = await t.app.inject({ method: 'POST', url: `${new URL(outcome.next_url).pathname}/approve` });
    const back = new URL(/^0;url=(.*)$/.exec(approved.headers.refresh as string)![1]!);
    expect(back.pathname).toBe(`${path}/return`);
    const returned = await t.app.inject({ method: 'GET', url: `${back.pathname}${back.search}` });
    expect(returned.headers.refresh).toMatch(
      new RegExp(`^0;url=https://shop.example/bank\\?transaction_id=${outcome.transaction_id}&transaction_status=`),
    );
    expect((await linkOf(link.id, m)).status).toBe('completed');
    expect((await transactionsOf(link.id, m))[0]).toMatchObject({ method: 'paybybank', country: 'NL' });
  });

  it('makes one payment of two buyers paying at once; the other is told the link is no longer payable', async () => {
    const link = await createLink(t, merchant);
    const { path, token } = await openPage(t, link.url);
    const headers = { 'x-payment-link-token': token };
    const sessions: string[] = [];
    for (let i = 0; i < 2; i++) {
      const id = (await t.app.inject({ method: 'POST', url: `${path}/sessions`, headers, payload: {} })).json().id;
      await t.app.inject({
        method: 'PUT',
        url: `/checkout/sessions/${id}/fields`,
        payload: {
          payment_method: {
            method: 'card',
            number: '4111111111111111',
            expiration_date: '12/40',
            security_code: '123',
          },
        },
      });
      sessions.push(id);
    }
    const answers = await Promise.all(
      sessions.map((id) =>
        t.app.inject({ method: 'POST', url: `${path}/payments`, headers, payload: { checkout_session_id: id } }),
      ),
    );
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 400]);
    const refused = answers.find((a) => a.statusCode === 400)!.json();
    expect(refused.details[0].type).toBe('payment_link_not_payable');
    expect(refused.message).toMatch(/in progress|paid already/);
    expect(await transactionsOf(link.id)).toHaveLength(1);
  });
});

describe('errors', () => {
  it('shows expired and completed links clearly and takes no payment through them', async () => {
    const expired = await createLink(t, merchant);
    const { path, token } = await openPage(t, expired.url);
    await t.request({ method: 'POST', url: `/payment-links/${expired.id}/expire`, merchantAccountId: merchant });
    expect((await openPage(t, expired.url)).res.body).toContain('This payment link has expired');
    const session = await t.app.inject({
      method: 'POST',
      url: `${path}/sessions`,
      headers: { 'x-payment-link-token': token },
      payload: {},
    });
    expect(session.statusCode).toBe(400);
    expect(session.json()).toMatchObject({
      code: 'bad_request',
      message: 'This payment link has expired and can no longer be paid',
      details: [{ type: 'payment_link_not_payable' }],
    });
    const paid = await createLink(t, merchant);
    const first = await payOnPage(t, paid.url);
    expect(first.json().outcome).toBe('paid');
    const page = await openPage(t, paid.url);
    expect(page.res.body).toContain('Payment successful');
    expect(page.res.body).not.toContain('id="pay-form"');
    const again = await t.app.inject({
      method: 'POST',
      url: `${page.path}/sessions`,
      headers: { 'x-payment-link-token': token },
      payload: {},
    });
    expect(again.statusCode).toBe(403);
  });

  it('answers an unknown link with a 404 page, also under another merchant account', async () => {
    const link = await createLink(t, merchant);
    for (const url of [
      `/pay/${merchant}/${crypto.randomUUID()}`,
      `/pay/default/${link.id}`,
      `/pay/${merchant}/not-a-uuid`,
    ]) {
      const res = await t.app.inject({ method: 'GET', url });
      expect([url, res.statusCode]).toEqual([url, url.endsWith('not-a-uuid') ? 422 : 404]);
      expect(res.headers['content-type']).toMatch(/text\/html/);
      if (res.statusCode === 404) expect(res.body).toContain('Payment link not found');
    }
  });

  it("refuses calls without the page token, with another link's token, or from another origin (403)", async () => {
    const link = await createLink(t, merchant);
    const other = await createLink(t, merchant);
    const { path, token } = await openPage(t, link.url);
    const foreign = (await openPage(t, other.url)).token;
    for (const headers of [
      {},
      { 'x-payment-link-token': 'forged.token' },
      { 'x-payment-link-token': foreign },
      { 'x-payment-link-token': token, origin: 'https://evil.example' },
    ]) {
      const res = await t.app.inject({ method: 'POST', url: `${path}/sessions`, headers, payload: {} });
      expect(res.statusCode, JSON.stringify(headers)).toBe(403);
    }
    const form = await t.app.inject({
      method: 'POST',
      url: `${path}/payments`,
      headers: { 'x-payment-link-token': token, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'checkout_session_id=x',
    });
    expect(form.statusCode).toBe(400);
    expect((await linkOf(link.id)).status).toBe('active');
  });

  it('takes exactly one way to pay: a checkout session or a redirect method', async () => {
    const link = await createLink(t, merchant);
    const { path, token } = await openPage(t, link.url);
    for (const payload of [{}, { method: 'paybybank', checkout_session_id: crypto.randomUUID() }]) {
      const res = await t.app.inject({
        method: 'POST',
        url: `${path}/payments`,
        headers: { 'x-payment-link-token': token },
        payload,
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toBe(
        "Send checkout_session_id (a card) or method (a redirect method, or applepay or googlepay with the wallet's token), one of them",
      );
    }
    expect((await linkOf(link.id)).status).toBe('active');
  });

  it("refuses a stored card that is not the link's buyer's: the page's session is bound to the link's buyer (or to none)", async () => {
    const buyer = (
      await t.request({ method: 'POST', url: '/buyers', merchantAccountId: merchant, payload: { display_name: 'Ada' } })
    ).json();
    const ofNoOne = (
      await t.request({
        method: 'POST',
        url: '/payment-methods',
        merchantAccountId: merchant,
        payload: { method: 'card', number: '4111111111111111', expiration_date: '12/40' },
      })
    ).json();
    const ofBuyer = (
      await t.request({
        method: 'POST',
        url: '/payment-methods',
        merchantAccountId: merchant,
        payload: { method: 'card', number: '4111111111111111', expiration_date: '12/40', buyer_id: buyer.id },
      })
    ).json();
    const other = (
      await t.request({
        method: 'POST',
        url: '/buyers',
        merchantAccountId: merchant,
        payload: { display_name: 'Grace' },
      })
    ).json();
    for (const [linkBody, card] of [
      [{}, ofNoOne],
      [{}, ofBuyer],
      [{ buyer_id: other.id }, ofBuyer],
      [{ buyer_id: other.id }, ofNoOne],
    ] as const) {
      const link = await createLink(t, merchant, linkBody);
      const { path, token } = await openPage(t, link.url);
      const headers = { 'x-payment-link-token': token };
      const id = (await t.app.inject({ method: 'POST', url: `${path}/sessions`, headers, payload: {} })).json().id;
      const fields = await t.app.inject({
        method: 'PUT',
        url: `/checkout/sessions/${id}/fields`,
        payload: { payment_method: { method: 'id', id: card.id, security_code: '123' } },
      });
      expect(fields.statusCode).toBe(404);
      expect(fields.json().message).toBe(`The payment method ${card.id} could not be found`);
      const res = await t.app.inject({
        method: 'POST',
        url: `${path}/payments`,
        headers,
        payload: { checkout_session_id: id },
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toBe('The checkout session holds no card: send the card to its fields endpoint first');
      expect(await transactionsOf(link.id)).toEqual([]);
      expect((await linkOf(link.id)).status).toBe('active');
    }
  });
});

describe('security', () => {
  it("offers the stored cards of the link's buyer and pays with one", async () => {
    const buyer = (
      await t.request({ method: 'POST', url: '/buyers', merchantAccountId: merchant, payload: { display_name: 'Ada' } })
    ).json();
    const card = (
      await t.request({
        method: 'POST',
        url: '/payment-methods',
        merchantAccountId: merchant,
        payload: { method: 'card', number: '5555555555554444', expiration_date: '11/39', buyer_id: buyer.id },
      })
    ).json();
    const link = await createLink(t, merchant, { buyer_id: buyer.id });
    const { res, path, token } = await openPage(t, link.url);
    expect(res.body).toContain(`value="${card.id}"`);
    expect(res.body).toContain('mastercard ending 4444, expires 11/39');
    const headers = { 'x-payment-link-token': token };
    const id = (await t.app.inject({ method: 'POST', url: `${path}/sessions`, headers, payload: {} })).json().id;
    await t.app.inject({
      method: 'PUT',
      url: `/checkout/sessions/${id}/fields`,
      payload: { payment_method: { method: 'id', id: card.id, security_code: '123' } },
    });
    const paid = await t.app.inject({
      method: 'POST',
      url: `${path}/payments`,
      headers,
      payload: { checkout_session_id: id },
    });
    expect(paid.json()).toMatchObject({ outcome: 'paid' });
    expect((await transactionsOf(link.id))[0]).toMatchObject({
      buyer: { id: buyer.id },
      payment_method: { id: card.id },
    });
  });

  it('never puts the card number in a response, a URL or a log line', async () => {
    const link = await createLink(t, merchant);
    const res = await payOnPage(t, link.url, '4000000000000002');
    expect(res.body).not.toContain('4000000000000002');
    expect(t.logs.join('\n')).not.toContain('4000000000000002');
    expect(t.logs.join('\n')).not.toContain(link.id);
    for (const table of [
      'payment_links',
      'events',
      'audit_logs',
      'transactions',
      'transaction_events',
      'checkout_sessions',
      'jobs',
    ] as const) {
      const rows = JSON.stringify(await t.deps.db.selectFrom(table).selectAll().execute());
      expect(rows, table).not.toContain('4000000000000002');
    }
  });

  it("rate limits the page's calls per link (enumeration limit)", async () => {
    const limited = await buildTestApp({ EMBED_RATE_LIMIT_PER_MINUTE: '3' });
    try {
      const m = (await merchantWithMockCard(limited)).merchantAccountId;
      const link = await createLink(limited, m);
      const { path, token } = await openPage(limited, link.url);
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++)
        statuses.push(
          (
            await limited.app.inject({
              method: 'POST',
              url: `${path}/sessions`,
              headers: { 'x-payment-link-token': token },
              payload: {},
            })
          ).statusCode,
        );
      expect(statuses).toEqual([201, 201, 201, 429, 429]);
    } finally {
      await limited.close();
    }
  });
});
