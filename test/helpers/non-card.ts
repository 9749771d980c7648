import { expect } from 'vitest';
import { ADYEN_FAKE_KEY, ADYEN_FAKE_MERCHANT, startAdyenFake, type AdyenFake } from '../fakes/adyen-fake.ts';
import {
  DLOCAL_FAKE_LOGIN,
  DLOCAL_FAKE_SECRET,
  DLOCAL_FAKE_TRANS_KEY,
  startDlocalFake,
  type DlocalFake,
} from '../fakes/dlocal-fake.ts';
import {
  GOCARDLESS_FAKE_TOKEN,
  GOCARDLESS_FAKE_WEBHOOK_SECRET,
  startGoCardlessFake,
  type GoCardlessFake,
} from '../fakes/gocardless-fake.ts';
import {
  PAYPAL_FAKE_CLIENT_ID,
  PAYPAL_FAKE_SECRET,
  PAYPAL_FAKE_WEBHOOK_ID,
  startPaypalFake,
  type PaypalFake,
} from '../fakes/paypal-fake.ts';
import { buildTestApp, type TestApp } from './build-test-app.ts';

/**
 * The four non-card methods with real connectors (issue 53), each against its provider's local
 * fake, in one app: `paypal` (paypal-paypal), `ideal` (adyen-ideal), `pix` (dlocal-pix),
 * `gocardless` (gocardless-gocardless). Tests create as many services of one method as they need.
 */
export type NonCardMethod = 'paypal' | 'ideal' | 'pix' | 'gocardless';

export interface NonCardWorld {
  t: TestApp;
  paypal: PaypalFake;
  adyen: AdyenFake;
  dlocal: DlocalFake;
  gocardless: GoCardlessFake;
  close(): Promise<void>;
}

export const ADYEN_HMAC = 'AB'.repeat(32);

export async function startNonCardWorld(env: Record<string, string> = {}): Promise<NonCardWorld> {
  const [paypal, adyen, dlocal, gocardless] = await Promise.all([
    startPaypalFake(),
    startAdyenFake(),
    startDlocalFake(),
    startGoCardlessFake(),
  ]);
  const urls = [
    `paypal-paypal=${paypal.url}`,
    `adyen-card=${adyen.baseUrl}`,
    `dlocal-pix=${dlocal.url}`,
    `gocardless-gocardless=${gocardless.url}`,
  ].join(',');
  const t = await buildTestApp({ CONNECTOR_BASE_URLS: urls, ...env });
  return {
    t,
    paypal,
    adyen,
    dlocal,
    gocardless,
    close: async () => {
      await t.close();
      await Promise.all([paypal.close(), adyen.close(), dlocal.close(), gocardless.close()]);
    },
  };
}

/** Each method's definition, credentials, and where a service of it is usually accepted. */
export const METHODS: Record<
  NonCardMethod,
  { definition: string; fields: Record<string, string>; currency: string; country: string }
> = {
  paypal: {
    definition: 'paypal-paypal',
    fields: { client_id: PAYPAL_FAKE_CLIENT_ID, client_secret: PAYPAL_FAKE_SECRET, webhook_id: PAYPAL_FAKE_WEBHOOK_ID },
    currency: 'USD',
    country: 'US',
  },
  ideal: {
    definition: 'adyen-ideal',
    fields: { api_key: ADYEN_FAKE_KEY, merchant_account: ADYEN_FAKE_MERCHANT, hmac_key: ADYEN_HMAC },
    currency: 'EUR',
    country: 'NL',
  },
  pix: {
    definition: 'dlocal-pix',
    fields: { x_login: DLOCAL_FAKE_LOGIN, x_trans_key: DLOCAL_FAKE_TRANS_KEY, secret_key: DLOCAL_FAKE_SECRET },
    currency: 'BRL',
    country: 'BR',
  },
  gocardless: {
    definition: 'gocardless-gocardless',
    fields: { access_token: GOCARDLESS_FAKE_TOKEN, webhook_secret: GOCARDLESS_FAKE_WEBHOOK_SECRET },
    currency: 'GBP',
    country: 'GB',
  },
};

/** Every secret the services above were given (for leak scans). */
export const NON_CARD_SECRETS = [
  PAYPAL_FAKE_SECRET,
  ADYEN_FAKE_KEY,
  ADYEN_HMAC,
  DLOCAL_FAKE_TRANS_KEY,
  DLOCAL_FAKE_SECRET,
  GOCARDLESS_FAKE_TOKEN,
  GOCARDLESS_FAKE_WEBHOOK_SECRET,
];

/** Creates a service of `method` through the API (201 expected); returns its resource. */
export async function createNonCardService(
  t: TestApp,
  m: string,
  method: NonCardMethod,
  overrides: { display_name?: string; accepted_currencies?: string[]; accepted_countries?: string[] } = {},
) {
  const spec = METHODS[method];
  const res = await t.request({
    method: 'POST',
    url: '/payment-services',
    merchantAccountId: m,
    payload: {
      display_name: overrides.display_name ?? method,
      payment_service_definition_id: spec.definition,
      fields: Object.entries(spec.fields).map(([key, value]) => ({ key, value })),
      accepted_currencies: overrides.accepted_currencies ?? [spec.currency],
      accepted_countries: overrides.accepted_countries ?? [spec.country],
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: string; method: string; display_name: string };
}

/** The buyer of a PIX: dLocal needs the name, e-mail and CPF (decision 0125). */
export const PIX_BUYER = {
  billing_details: {
    first_name: 'Thiago',
    last_name: 'Gabriel',
    email_address: 'thiago@example.com',
    tax_id: { value: '530.333.155-50', kind: 'br.cpf' },
  },
};

/** The body of `POST /transactions` paying `amount` with `method` where its services usually accept it. */
export function nonCardPayment(method: NonCardMethod, body: Record<string, unknown> = {}) {
  const { currency, country } = METHODS[method];
  const cur = (body.currency as string | undefined) ?? currency;
  const ctry = (body.country as string | undefined) ?? country;
  return {
    amount: 1000,
    currency: cur,
    country: ctry,
    // iDEAL and PIX are sales; PayPal and GoCardless take both intents.
    intent: method === 'paypal' ? 'authorize' : 'capture',
    payment_method: { method, country: ctry, currency: cur, redirect_url: 'https://shop.example/done' },
    ...(method === 'pix' ? { buyer: PIX_BUYER } : {}),
    ...body,
  };
}

/**
 * The buyer on the provider's page (approving), then back at our return address; returns our
 * answer to the return. The fakes' pages take their own parameter for the buyer's decision.
 */
export async function approveAtProvider(
  t: TestApp,
  method: Exclude<NonCardMethod, 'pix'>,
  approvalUrl: string,
  approve = true,
) {
  const param = {
    paypal: `&decision=${approve ? 'approve' : 'cancel'}`,
    ideal: `?answer=${approve ? 'Y' : 'N'}`,
    gocardless: `?decision=${approve ? 'complete' : 'exit'}`,
  }[method];
  const page = await fetch(`${approvalUrl}${param}`, { redirect: 'manual' });
  expect(page.status).toBe(302);
  const back = new URL(page.headers.get('location')!);
  expect(back.pathname).toMatch(/^\/connector-returns\//);
  return t.app.inject({ method: 'GET', url: `${back.pathname}${back.search}` });
}
