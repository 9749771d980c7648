import { createHmac } from 'node:crypto';
import { errors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import { sandboxPazeKeys } from './sandbox-keys.ts';

/**
 * The sandbox's simulated Paze service (docs/digital-wallets.md "Paze"): its test cards and
 * consumer, the ids it makes up, and its session tokens. Stateless: the accessToken, the checkout
 * page's state and the code are short-lived JWTs (HS256) signed with the sandbox's Paze session
 * key, each naming the merchant account, the wallet and the session it belongs to; the caller
 * checks those against the request. Nothing here touches the database.
 */

export interface SandboxPazeCard {
  id: string;
  /** The network token (DPAN) the completeResponse carries. */
  dpan: string;
  /** The last four digits of the card number behind it, as Paze shows them. */
  panLastFour: string;
  network: 'VISA' | 'MASTERCARD';
  type: 'CREDIT' | 'DEBIT' | 'PREPAID';
  /** The card product as Paze names it to the buyer (its paymentCardDescriptor). */
  descriptor: string;
  /** What the sandbox's mock-card connector answers for it. */
  outcome: string;
}

/** The cards of the sandbox's Paze consumer; their network tokens drive mock-card's outcomes. */
export const SANDBOX_PAZE_CARDS: readonly SandboxPazeCard[] = [
  {
    id: 'visa-credit',
    dpan: '4895370012003478',
    panLastFour: '1111',
    network: 'VISA',
    type: 'CREDIT',
    descriptor: 'Sandbox Bank Visa Signature',
    outcome: 'Approved',
  },
  {
    id: 'mastercard-debit',
    dpan: '5204245250001488',
    panLastFour: '4444',
    network: 'MASTERCARD',
    type: 'DEBIT',
    descriptor: 'Sandbox Bank Debit Mastercard',
    outcome: 'Approved',
  },
  {
    id: 'visa-declined',
    dpan: '4000000000000002',
    panLastFour: '0002',
    network: 'VISA',
    type: 'CREDIT',
    descriptor: 'Sandbox Bank Visa',
    outcome: 'Declined: do_not_honor',
  },
  {
    id: 'visa-insufficient-funds',
    dpan: '4000000000009995',
    panLastFour: '9995',
    network: 'VISA',
    type: 'DEBIT',
    descriptor: 'Sandbox Bank Visa Debit',
    outcome: 'Declined: insufficient_funds',
  },
];
export const SANDBOX_PAZE_TOKEN_EXPIRY = { month: '12', year: '2030' };

export const SANDBOX_PAZE_CONSUMER = {
  firstName: 'Pat',
  lastName: 'Sandbox',
  fullName: 'Pat Sandbox',
  emailAddress: 'pat.sandbox@example.com',
  mobileNumber: { countryCode: '1', phoneNumber: '5555550100' },
  countryCode: 'US',
  languageCode: 'en',
};
export const SANDBOX_PAZE_ADDRESS = {
  name: 'Pat Sandbox',
  line1: '1 Sandbox Way',
  line2: null,
  line3: null,
  city: 'Tampa',
  state: 'FL',
  zip: '33601',
  countryCode: 'US',
};

export const SANDBOX_PAZE_ISSUER = 'svc-sandbox-paze';
/** How long the session's tokens live, in seconds. */
export const PAZE_TOKEN_LIFETIMES = { access: 1800, checkout: 900, code: 600 } as const;
export type PazeTokenKind = keyof typeof PAZE_TOKEN_LIFETIMES;

const digest = (label: string, value: string) =>
  createHmac('sha256', sandboxPazeKeys().sessionSecret).update(`${label}:${value}`).digest('hex');
const uuidOf = (hex: string) =>
  `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;

/** The simulated Paze client and profile of a wallet without its own (deterministic). */
export const simulatedClientId = (walletId: string) =>
  `SANDBOX${digest('client', walletId).slice(0, 24).toUpperCase()}`;
export const simulatedProfileId = (walletId: string) =>
  `SANDBOX-PROFILE-${digest('profile', walletId).slice(0, 16).toUpperCase()}`;
/** Paze's id of a session and its client context (deterministic for the session). */
export const simulatedEwSid = (sessionId: string) => uuidOf(digest('ewsid', sessionId));
export const simulatedClientContext = (sessionId: string) =>
  Buffer.from(digest('client-context', sessionId), 'hex').subarray(0, 24).toString('base64url');
/** The payment account reference of a sandbox card (29 characters, as the networks make them). */
export const sandboxPar = (cardId: string) => `V0010${digest('par', cardId).slice(0, 24).toUpperCase()}`;
/** A fresh cryptogram for one payload (20 bytes, as a TAVV or UCAF value). */
export const simulatedCryptogram = (sessionId: string, payloadId: string) =>
  Buffer.from(digest('cryptogram', `${sessionId}:${payloadId}`), 'hex')
    .subarray(0, 20)
    .toString('base64');

export interface SessionClaims {
  /** Merchant account. */
  mid: string;
  /** Wallet id. */
  wid: string;
  /** Session id. */
  sid: string;
  [claim: string]: unknown;
}

export class PazeSessionTokenError extends Error {
  constructor(readonly problem: 'expired' | 'invalid') {
    super(problem);
    this.name = 'PazeSessionTokenError';
  }
}

export async function signSessionToken(kind: PazeTokenKind, claims: SessionClaims, now = new Date()): Promise<string> {
  const iat = Math.floor(now.getTime() / 1000);
  return new SignJWT({ ...claims, typ: `paze-${kind}` })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuer(SANDBOX_PAZE_ISSUER)
    .setIssuedAt(iat)
    .setExpirationTime(iat + PAZE_TOKEN_LIFETIMES[kind])
    .sign(sandboxPazeKeys().sessionSecret);
}

/** The claims of a session token of `kind`; PazeSessionTokenError when expired or not one. */
export async function readSessionToken(
  kind: PazeTokenKind,
  token: string,
  now = new Date(),
): Promise<SessionClaims & JWTPayload> {
  try {
    const { payload } = await jwtVerify(token, sandboxPazeKeys().sessionSecret, {
      algorithms: ['HS256'],
      issuer: SANDBOX_PAZE_ISSUER,
      currentDate: now,
    });
    const valid =
      payload.typ === `paze-${kind}` &&
      typeof payload.mid === 'string' &&
      typeof payload.wid === 'string' &&
      typeof payload.sid === 'string';
    if (!valid) throw new PazeSessionTokenError('invalid');
    return payload as SessionClaims & JWTPayload;
  } catch (error) {
    if (error instanceof PazeSessionTokenError) throw error;
    throw new PazeSessionTokenError(error instanceof errors.JWTExpired ? 'expired' : 'invalid');
  }
}

/** The decrypted payload the simulated Paze signs and encrypts for a card (`decryptPazeToken` reads it back). */
export interface SandboxPayloadOptions {
  clientId: string;
  profileId: string;
  cryptogram: string;
  now: Date;
  transactionValue?: { transactionAmount: string; transactionCurrency: string } | null;
  /** Default: SANDBOX_PAZE_TOKEN_EXPIRY. */
  expiry?: { month: string; year: string };
  eci?: string;
}

export function sandboxPazePayload(
  card: Pick<SandboxPazeCard, 'id' | 'dpan' | 'network'>,
  options: SandboxPayloadOptions,
): Record<string, unknown> {
  const visa = card.network === 'VISA';
  const expiry = options.expiry ?? SANDBOX_PAZE_TOKEN_EXPIRY;
  return {
    clientId: options.clientId,
    profileId: options.profileId,
    token: {
      paymentToken: card.dpan,
      tokenExpirationMonth: expiry.month,
      tokenExpirationYear: expiry.year,
      paymentAccountReference: sandboxPar(card.id),
    },
    paymentCardNetwork: card.network,
    // The cryptogram is good for 15 minutes, as network token cryptograms are short-lived.
    dynamicData: [
      {
        dynamicDataValue: options.cryptogram,
        dynamicDataType: visa ? 'CARD_APPLICATION_CRYPTOGRAM_SHORT_FORM' : 'CARD_APPLICATION_CRYPTOGRAM_LONG_FORM',
        dynamicDataExpiration: String(Math.floor(options.now.getTime() / 1000) + 900),
      },
    ],
    billingAddress: SANDBOX_PAZE_ADDRESS,
    consumer: SANDBOX_PAZE_CONSUMER,
    eci: options.eci ?? (visa ? '07' : '02'),
    ...(options.transactionValue ? { transactionValue: options.transactionValue } : {}),
  };
}
