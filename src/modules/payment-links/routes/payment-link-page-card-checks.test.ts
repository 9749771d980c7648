import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { cardChecks } from '../../../../test/helpers/page-card-checks.ts';
import { createLink, openPage } from '../../../../test/helpers/payment-links.ts';
import { merchantWithMockCard } from '../../../../test/helpers/transactions.ts';

/**
 * An invalid card sent the way the hosted page's script sends it (issue 51, defect 4): the server
 * refuses it with an answer the script reads as "check your card" (`cardRefusal` of
 * assets/card-checks.js, the file the browser runs) naming the field, and takes no payment.
 */

let t: TestApp;
let merchant: string;
const checks = cardChecks();
beforeAll(async () => {
  t = await buildTestApp();
  ({ merchantAccountId: merchant } = await merchantWithMockCard(t));
});
afterAll(async () => t.close());

const transactionsOf = async (id: string) =>
  (await t.request({ method: 'GET', url: `/transactions?payment_link_id=${id}`, merchantAccountId: merchant })).json()
    .items;

/** The page of a new link, a checkout session of it, and the card put in the session's fields as page.js does. */
async function sendCard(paymentMethod: Record<string, unknown>, linkBody: Record<string, unknown> = {}) {
  const link = await createLink(t, merchant, linkBody);
  const { path, token } = await openPage(t, link.url);
  const headers = { 'x-payment-link-token': token };
  const session = (await t.app.inject({ method: 'POST', url: `${path}/sessions`, headers, payload: {} })).json()
    .id as string;
  const fields = await t.app.inject({
    method: 'PUT',
    url: `/checkout/sessions/${session}/fields`,
    payload: { payment_method: paymentMethod },
  });
  return { link, path, headers, session, fields };
}

describe('errors', () => {
  it.each([
    [
      'a number failing Luhn',
      { number: '4111111111111112', expiration_date: '12/40', security_code: '123' },
      400,
      [{ field: 'card-number', problem: 'number-invalid' }],
    ],
    [
      'a Visa number of 14 digits (Luhn-valid)',
      { number: '41111111111114', expiration_date: '12/40', security_code: '123' },
      400,
      [{ field: 'card-number', problem: 'number-invalid' }],
    ],
    [
      'an expired card',
      { number: '4111111111111111', expiration_date: '01/20', security_code: '123' },
      400,
      [{ field: 'expiration-date', problem: 'expiry-past' }],
    ],
    [
      'missing fields',
      { number: '', expiration_date: '', security_code: null },
      422,
      [
        { field: 'card-number', problem: 'number-invalid' },
        { field: 'expiration-date', problem: 'expiry-format' },
      ],
    ],
    [
      'a month 13 and a short security code',
      { number: '4111111111111111', expiration_date: '13/40', security_code: '12' },
      422,
      [
        { field: 'expiration-date', problem: 'expiry-format' },
        { field: 'security-code', problem: 'code-invalid' },
      ],
    ],
  ])(
    '%s: refused, read by the page as "check your card" on the fields it names; no payment',
    async (_name, card, status, problems) => {
      const { link, fields } = await sendCard({ method: 'card', ...card });
      expect(fields.statusCode, fields.body).toBe(status);
      expect(checks.cardRefusal(fields.json())).toEqual(problems);
      expect(fields.body).not.toContain(String(card.number).slice(0, 12) || 'never');
      expect(await transactionsOf(link.id)).toEqual([]);
    },
  );

  it('a stored card that has expired since it was stored: the payment is refused as a card problem, the link stays payable', async () => {
    const buyer = (
      await t.request({ method: 'POST', url: '/buyers', merchantAccountId: merchant, payload: { display_name: 'Ada' } })
    ).json();
    const stored = (
      await t.request({
        method: 'POST',
        url: '/payment-methods',
        merchantAccountId: merchant,
        payload: { method: 'card', number: '4111111111111111', expiration_date: '12/40', buyer_id: buyer.id },
      })
    ).json();
    await t.deps.db
      .updateTable('payment_methods')
      .set({ expiration_date: '01/20' })
      .where('merchant_account_id', '=', merchant)
      .where('id', '=', stored.id)
      .execute();
    const { link, path, headers, session, fields } = await sendCard(
      { method: 'id', id: stored.id, security_code: '123' },
      { buyer_id: buyer.id },
    );
    expect(fields.statusCode, fields.body).toBe(204);
    const paid = await t.app.inject({
      method: 'POST',
      url: `${path}/payments`,
      headers,
      payload: { checkout_session_id: session },
    });
    expect(paid.statusCode, paid.body).toBe(400);
    expect(checks.cardRefusal(paid.json())).toEqual([{ field: null, problem: 'expiry-past' }]);
    expect(
      (await t.request({ method: 'GET', url: `/payment-links/${link.id}`, merchantAccountId: merchant })).json().status,
    ).toBe('active');
  });

  it('what is not about the card is not read as a card problem: a link no longer payable, a session without a card', async () => {
    const { link, path, headers, session } = await sendCard({
      method: 'card',
      number: '4111111111111112',
      expiration_date: '12/40',
    });
    const noCard = await t.app.inject({
      method: 'POST',
      url: `${path}/payments`,
      headers,
      payload: { checkout_session_id: session },
    });
    expect(noCard.statusCode).toBe(400);
    expect(checks.cardRefusal(noCard.json())).toBeNull();
    await t.request({ method: 'POST', url: `/payment-links/${link.id}/expire`, merchantAccountId: merchant });
    const expired = await t.app.inject({ method: 'POST', url: `${path}/sessions`, headers, payload: {} });
    expect(expired.json().details[0].type).toBe('payment_link_not_payable');
    expect(checks.cardRefusal(expired.json())).toBeNull();
  });
});

describe('happy', () => {
  it.each([
    ['en', 'MM/YY', 'Enter the card number.', 'The month must be between 01 and 12.'],
    ['en-GB', 'MM/YY', 'Enter the card number.', 'The month must be between 01 and 12.'],
    ['es', 'MM/AA', 'Introduce el número de tarjeta.', 'El mes debe estar entre 01 y 12.'],
    ['pt', 'MM/AA', 'Introduza o número do cartão.', 'O mês deve estar entre 01 e 12.'],
    ['pt-BR', 'MM/AA', 'Informe o número do cartão.', 'O mês deve estar entre 01 e 12.'],
  ])(
    'the %s page carries its placeholder and the messages of every check; each card input names its message',
    async (locale, placeholder, required, month) => {
      const link = await createLink(t, merchant, { locale });
      const html = (await openPage(t, link.url)).res.body;
      expect(html).toContain(
        `id="expiration-date" inputmode="numeric" autocomplete="cc-exp" maxlength="7" placeholder="${placeholder}"`,
      );
      expect(html).toContain(`data-msg-number-required="${required}"`);
      expect(html).toContain(`data-msg-expiry-month="${month}"`);
      for (const name of [
        'number-required',
        'number-format',
        'number-invalid',
        'expiry-required',
        'expiry-format',
        'expiry-month',
        'expiry-past',
        'code-required',
        'code-invalid',
        'invalid-card',
      ]) {
        expect(html, name).toMatch(new RegExp(`data-msg-${name}="[^"]+"`));
      }
      for (const id of ['card-number', 'expiration-date', 'security-code']) {
        expect(html).toMatch(new RegExp(`id="${id}"[^>]* aria-required="true" aria-describedby="${id}-error">`));
        expect(html).toContain(`<p class="field-error" id="${id}-error" aria-live="polite"></p>`);
      }
      expect(html).toContain(
        '<script src="/pay-assets/card-checks.js" defer></script><script src="/pay-assets/page.js" defer></script>',
      );
    },
  );

  it('serves the checks script like the page script', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/pay-assets/card-checks.js' });
    expect(res.statusCode).toBe(200);
    expect(res.headers).toMatchObject({
      'content-type': 'text/javascript; charset=utf-8',
      'x-content-type-options': 'nosniff',
    });
    expect(res.body).toContain('root.svcCardChecks =');
  });
});
