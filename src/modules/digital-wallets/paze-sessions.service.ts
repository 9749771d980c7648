import { createPublicKey, randomUUID, type KeyObject } from 'node:crypto';
import type { Deps, RequestContext } from '../../context.ts';
import type { DigitalWalletRow } from '../../db/schema-digital-wallets.ts';
import { AppError, fieldRefusal } from '../../errors/app-error.ts';
import { makePazeCompleteResponse } from '../../wallets/paze-complete-response.ts';
import {
  PazeSessionTokenError,
  readSessionToken,
  SANDBOX_PAZE_ADDRESS,
  SANDBOX_PAZE_CARDS,
  SANDBOX_PAZE_CONSUMER,
  SANDBOX_PAZE_ISSUER,
  SANDBOX_PAZE_TOKEN_EXPIRY,
  sandboxPar,
  sandboxPazePayload,
  signSessionToken,
  simulatedClientContext,
  simulatedCryptogram,
  simulatedEwSid,
  type PazeTokenKind,
  type SandboxPazeCard,
  type SessionClaims,
} from '../../wallets/paze-sandbox.ts';
import { sandboxPazeKeys } from '../../wallets/sandbox-keys.ts';
import type { CardScheme } from '../../lib/card-schemes.ts';
import { CARD_SCHEME_ICON_SIZE, cardSchemeIconPath } from '../../lib/cards/scheme-definitions.ts';
import { pazeClient } from './paze-client.ts';
import type {
  PazeCheckout,
  PazeCheckoutBody,
  PazeComplete,
  PazeCompleteBody,
  PazeReview,
  PazeReviewBody,
  PazeSession,
  PazeSessionBody,
  TransactionValue,
} from './paze-sessions.schemas.ts';
import { rsaPrivateKey, walletSecrets } from './wallet-secrets.ts';
import { walletOf } from './wallet-sessions.service.ts';

/**
 * The Paze session operations (docs/digital-wallets.md "Paze"). The web session is configuration
 * (no call to Paze). The mobile session, create, review and complete are Paze's server API, whose
 * specification Paze gives its onboarded wallet partners only: production refuses them, the
 * sandbox serves them with a simulated Paze (wallets/paze-sandbox.ts) whose checkout page lives in
 * sandbox-approvals.
 */

/** The server API is the simulated Paze's alone. */
function simulatedOnly(deps: Deps, operation: string): void {
  if (deps.config.environment === 'sandbox') return;
  throw new AppError(
    'bad_request',
    `${operation} is Paze's server API, whose specification Paze gives only to its onboarded wallet partners; this server does not implement it in production. Use the web session (source web) with Paze's JavaScript SDK and pay with its completeResponse (payment_method.method paze); the sandbox simulates the mobile flow`,
  );
}

const BAD_TOKEN: Record<PazeSessionTokenError['problem'], string> = {
  expired: 'has expired: start a new Paze session',
  invalid: "is not a token of this server's Paze session",
};

/** Reads a session token of the request and checks it belongs to this merchant account, wallet and session. */
async function sessionToken(
  kind: PazeTokenKind,
  token: string,
  field: string,
  expected: { merchantAccountId: string; walletId: string; sessionId?: string },
): Promise<SessionClaims> {
  let claims: SessionClaims;
  try {
    claims = await readSessionToken(kind, token);
  } catch (error) {
    if (!(error instanceof PazeSessionTokenError)) throw error;
    throw fieldRefusal(
      'body',
      `/${field}`,
      `${field} ${BAD_TOKEN[error.problem]}`,
      error.problem === 'expired' ? 'expired' : 'value_error',
    );
  }
  if (claims.mid !== expected.merchantAccountId)
    throw fieldRefusal('body', `/${field}`, `${field} was issued to another merchant account`);
  if (claims.wid !== expected.walletId)
    throw fieldRefusal(
      'body',
      `/${field}`,
      `${field} was issued for another Paze wallet of this merchant account (the wallet was registered again): start a new session`,
    );
  if (expected.sessionId !== undefined && claims.sid !== expected.sessionId)
    throw fieldRefusal('body', `/${field}`, `${field} belongs to another session than sessionId`);
  return claims;
}

/** The mobile session's accessToken and the code of the checkout, both of the request's session. */
async function sessionOf(ctx: RequestContext, body: { sessionId: string; accessToken: string; code?: string }) {
  const wallet = await walletOf(ctx, 'paze');
  const expected = { merchantAccountId: ctx.merchantAccountId, walletId: wallet.id, sessionId: body.sessionId };
  await sessionToken('access', body.accessToken, 'accessToken', expected);
  const code = body.code === undefined ? null : await sessionToken('code', body.code, 'code', expected);
  const card = code ? SANDBOX_PAZE_CARDS.find((c) => c.id === code.card) : undefined;
  if (code && !card) throw fieldRefusal('body', '/code', 'code names no card of the sandbox Paze consumer');
  return { wallet, code, card: card ?? null };
}

const stamp = (sessionId: string) => ({
  clientContext: simulatedClientContext(sessionId),
  ewSID: simulatedEwSid(sessionId),
  timestampISO8601: new Date().toISOString(),
});
const checkoutUrl = (deps: Deps, state: string) => `${deps.config.publicUrl}/sandbox/paze/checkout?state=${state}`;

/** `POST /digital-wallets/paze/session`: the Paze client and profile; mobile also starts a session. */
export async function createPazeSession(ctx: RequestContext, body: PazeSessionBody): Promise<PazeSession> {
  const wallet = await walletOf(ctx, 'paze');
  const source = body.source ?? 'web';
  if (source === 'web' && !body.domain_name)
    throw fieldRefusal(
      'body',
      '/domain_name',
      'domain_name is required when source is web: the domain the Paze button is shown on',
    );
  if (source === 'mobile') simulatedOnly(ctx.deps, 'A Paze mobile session');
  const client = pazeClient(ctx.deps.config, wallet);
  if (source === 'web') return client;
  const sessionId = randomUUID();
  const accessToken = await signSessionToken('access', { mid: ctx.merchantAccountId, wid: wallet.id, sid: sessionId });
  return { ...client, accessToken, sessionId };
}

// Schemes a browser must never be sent to, whatever an app registered.
const UNSAFE_SCHEMES = new Set(['javascript', 'data', 'vbscript', 'file', 'about', 'blob']);

/** `POST /digital-wallets/paze/session/create`: the checkout of a mobile session (the simulated Paze's page in the sandbox). */
export async function createPazeCheckout(ctx: RequestContext, body: PazeCheckoutBody): Promise<PazeCheckout> {
  simulatedOnly(ctx.deps, 'Creating a Paze mobile checkout');
  const { wallet } = await sessionOf(ctx, body);
  const client = pazeClient(ctx.deps.config, wallet);
  if (body.client.id !== client.id)
    throw fieldRefusal('body', '/client/id', `client.id must be the Paze client of the session (${client.id})`);
  if (body.client.profileId !== client.profileId)
    throw fieldRefusal(
      'body',
      '/client/profileId',
      `client.profileId must be the wallet's Paze profile (${client.profileId})`,
    );
  if (UNSAFE_SCHEMES.has(body.callbackURLScheme.toLowerCase()))
    throw fieldRefusal(
      'body',
      '/callbackURLScheme',
      `callbackURLScheme must be your app's URL scheme, not ${body.callbackURLScheme}`,
    );
  if (body.intent === 'EXPRESS_CHECKOUT' && !body.transactionValue)
    throw fieldRefusal(
      'body',
      '/transactionValue',
      'transactionValue is required with intent EXPRESS_CHECKOUT (the buyer pays without a review step)',
    );
  const state = await signSessionToken('checkout', {
    mid: ctx.merchantAccountId,
    wid: wallet.id,
    sid: body.sessionId,
    cb: body.callbackURLScheme,
    tv: body.transactionValue ?? null,
    networks: body.acceptedPaymentCardNetworks ?? ['VISA', 'MASTERCARD'],
    shipping: body.shippingPreference !== 'NONE',
    billing: body.billingPreference !== 'NONE',
  });
  return { pazeCheckoutUrl: checkoutUrl(ctx.deps, state), ...stamp(body.sessionId) };
}

/** The sandbox consumer's address, as Paze gives it for shipping: the consumer receives the delivery. */
const shippingAddress = () => {
  const { name: _name, ...lines } = SANDBOX_PAZE_ADDRESS;
  return {
    ...lines,
    deliveryContactDetails: {
      contactFullName: SANDBOX_PAZE_CONSUMER.fullName,
      contactPhoneNumber: SANDBOX_PAZE_CONSUMER.mobileNumber,
    },
  };
};

/**
 * The chosen card as the review shows it. Its art is the card scheme's icon this server serves
 * (`/assets/card-schemes/...`, no token needed): the simulated Paze has no issuer card art.
 */
const maskedCard = (deps: Deps, card: SandboxPazeCard, billing: boolean) => ({
  panLastFour: card.panLastFour,
  paymentAccountReference: sandboxPar(card.id),
  panExpirationMonth: SANDBOX_PAZE_TOKEN_EXPIRY.month,
  panExpirationYear: SANDBOX_PAZE_TOKEN_EXPIRY.year,
  paymentCardDescriptor: card.descriptor,
  paymentCardType: card.type,
  paymentCardBrand: card.network,
  paymentCardNetwork: card.network,
  digitalCardData: {
    artUri: `${deps.config.publicUrl}${cardSchemeIconPath(SCHEME_OF_NETWORK[card.network])}`,
    artHeight: CARD_SCHEME_ICON_SIZE.height,
    artWidth: CARD_SCHEME_ICON_SIZE.width,
  },
  billingAddress: billing ? SANDBOX_PAZE_ADDRESS : null,
});

const SCHEME_OF_NETWORK = { VISA: 'visa', MASTERCARD: 'mastercard' } as const satisfies Record<
  SandboxPazeCard['network'],
  CardScheme
>;

/** `POST /digital-wallets/paze/session/review`: the consumer, the chosen card (masked) and a fresh code. */
export async function reviewPazeSession(ctx: RequestContext, body: PazeReviewBody): Promise<PazeReview> {
  simulatedOnly(ctx.deps, 'Reviewing a Paze session');
  const { code, card } = await sessionOf(ctx, body);
  const claims = {
    mid: code!.mid,
    wid: code!.wid,
    sid: code!.sid,
    card: card!.id,
    cb: code!.cb,
    tv: code!.tv ?? null,
    networks: code!.networks,
    shipping: code!.shipping,
    billing: code!.billing,
  };
  const change = checkoutUrl(ctx.deps, await signSessionToken('checkout', claims));
  return {
    consumer: SANDBOX_PAZE_CONSUMER,
    shippingAddress: code!.shipping === false ? null : shippingAddress(),
    // A code of a checkout made before billingPreference was kept has no `billing`: the address.
    maskedCard: maskedCard(ctx.deps, card!, code!.billing !== false),
    links: { CHANGE_CARD: change, CHANGE_SHIPPING_ADDRESS: change },
    code: await signSessionToken('code', claims),
  };
}

/** The public key the securedPayload is encrypted to: the wallet's own key, else the sandbox's. */
async function recipientKey(ctx: RequestContext, wallet: DigitalWalletRow): Promise<KeyObject> {
  if (!wallet.payment_processing_key_configured) return createPublicKey(sandboxPazeKeys().processingKey);
  const secrets = await walletSecrets(ctx.deps.db, ctx.deps, wallet);
  return createPublicKey(rsaPrivateKey(secrets.payment_processing_private_key!, 'payment_processing_private_key'));
}

/**
 * `POST /digital-wallets/paze/session/complete`: a completeResponse signed by the simulated Paze
 * wrapping a securedPayload encrypted to the wallet's key, with a fresh cryptogram: paying with it
 * (method paze) decrypts it for real.
 */
export async function completePazeSession(ctx: RequestContext, body: PazeCompleteBody): Promise<PazeComplete> {
  simulatedOnly(ctx.deps, 'Completing a Paze session');
  const { wallet, code, card } = await sessionOf(ctx, body);
  const client = pazeClient(ctx.deps.config, wallet);
  const keys = sandboxPazeKeys();
  const now = new Date();
  const payloadId = randomUUID();
  const transactionValue = body.transactionValue ?? (code!.tv as TransactionValue | null);
  const data = sandboxPazePayload(card!, {
    clientId: client.id,
    profileId: client.profileId,
    cryptogram: simulatedCryptogram(body.sessionId, payloadId),
    now,
    transactionValue,
  });
  const made = await makePazeCompleteResponse({
    data,
    recipientPublicKey: await recipientKey(ctx, wallet),
    signer: { key: keys.signingKey, kid: keys.signingKeyId },
    sessionId: body.sessionId,
    payloadId,
    issuedAt: now,
    lifetimeSeconds: 3600,
    issuer: SANDBOX_PAZE_ISSUER,
  });
  return {
    payloadId,
    completeResponse: made.completeResponse,
    securePayload: made.securedPayload,
    ...stamp(body.sessionId),
  };
}

/** The sandbox checkout page of a state token (no bearer token: the state is the credential). */
export async function pazeCheckoutPage(
  state: string,
): Promise<{ cards: SandboxPazeCard[]; amount: TransactionValue | null }> {
  const claims = await checkoutState(state);
  const networks = Array.isArray(claims.networks) ? (claims.networks as string[]) : [];
  return {
    cards: SANDBOX_PAZE_CARDS.filter((c) => networks.includes(c.network)),
    amount: (claims.tv as TransactionValue | null) ?? null,
  };
}

/** The buyer's choice on the checkout page: the app's callback URL with a code for the card. */
export async function choosePazeCard(state: string, cardId: string): Promise<string> {
  const claims = await checkoutState(state);
  const card = SANDBOX_PAZE_CARDS.find((c) => c.id === cardId && (claims.networks as string[]).includes(c.network));
  if (!card)
    throw fieldRefusal(
      'path',
      '/card_id',
      `${cardId} is not a card of the sandbox Paze consumer accepted by this checkout`,
    );
  const code = await signSessionToken('code', {
    mid: claims.mid,
    wid: claims.wid,
    sid: claims.sid,
    card: card.id,
    cb: claims.cb,
    tv: claims.tv ?? null,
    networks: claims.networks,
    shipping: claims.shipping,
    billing: claims.billing,
  });
  return `${String(claims.cb)}://paze?code=${code}`;
}

async function checkoutState(state: string): Promise<SessionClaims> {
  try {
    return await readSessionToken('checkout', state);
  } catch (error) {
    if (!(error instanceof PazeSessionTokenError)) throw error;
    throw fieldRefusal(
      'query',
      '/state',
      error.problem === 'expired'
        ? 'This Paze checkout has expired: return to the app and start again'
        : 'state is not a Paze checkout of this server',
      error.problem === 'expired' ? 'expired' : 'value_error',
    );
  }
}
