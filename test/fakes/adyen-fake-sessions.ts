import { randomBytes } from 'node:crypto';
import type { FakeAnswer } from './fake-server.ts';

/**
 * Adyen's Hosted Checkout at the fake (Checkout API v71 `POST /sessions` with `mode: "hosted"`,
 * `GET /sessions/{sessionId}?sessionResult=`; docs.adyen.com "Hosted Checkout"): a session answers
 * the `url` of Adyen's page; there the buyer gives the SEPA account holder and IBAN and pays
 * (`?answer=Y`) or cancels (`?answer=N`), and is sent to `returnUrl` with `sessionId` and
 * `sessionResult`. The session result names the payment (`payments[].pspReference`). Checks:
 * `returnUrl`, `reference`, the amount, `mode`, `allowedPaymentMethods` (SEPA Direct Debit: EUR
 * only), `additionalData` values as strings, Auto Rescue's `maxDaysToRescue` (1 to 48) and its
 * required `merchantOrderReference`.
 */

export interface FakeSession {
  id: string;
  status: 'active' | 'completed' | 'canceled';
  amount: { value: number; currency: string };
  reference: string;
  returnUrl: string;
  allowed: string[];
  additionalData: Record<string, string>;
  /** The token Adyen appends on the buyer's return, and the payment it made. */
  result: string | null;
  pspReference: string | null;
}

const bad = (code: string, message: string): FakeAnswer => ({
  status: 422,
  json: { status: 422, errorCode: code, message, errorType: 'validation' },
});

export class AdyenFakeSessions {
  readonly sessions = new Map<string, FakeSession>();
  private sequence = 0;

  /** `pay` makes the payment of a paid session (its pspReference); `url` is the fake's own address. */
  constructor(
    private readonly pay: (session: FakeSession) => string,
    private readonly url: () => string,
  ) {}

  private problem(body: Record<string, any>): FakeAnswer | null {
    if (!Number.isInteger(body.amount?.value) || !/^[A-Z]{3}$/.test(body.amount?.currency ?? ''))
      return bad('137', 'Invalid amount specified');
    if (!body.returnUrl) return bad('14_029', "Required field 'returnUrl' is not provided.");
    if (!body.reference) return bad('14_030', "Required field 'reference' is not provided.");
    if (body.mode !== undefined && body.mode !== 'hosted' && body.mode !== 'embedded')
      return bad('14_030', 'mode must be hosted or embedded');
    const allowed = body.allowedPaymentMethods ?? [];
    if (!Array.isArray(allowed) || allowed.some((m: unknown) => typeof m !== 'string'))
      return bad('14_030', 'allowedPaymentMethods must be a list of payment method types');
    if (allowed.includes('sepadirectdebit') && body.amount.currency !== 'EUR')
      return bad('14_012', 'SEPA Direct Debit takes EUR only');
    const data = body.additionalData ?? {};
    if (Object.values(data).some((v) => typeof v !== 'string'))
      return bad('14_030', 'additionalData values must be strings');
    const days = data.maxDaysToRescue;
    if (days !== undefined && !(Number(days) >= 1 && Number(days) <= 48 && Number.isInteger(Number(days))))
      return bad('14_030', 'maxDaysToRescue must be from 1 to 48');
    if (data.autoRescue === 'true' && !body.merchantOrderReference)
      return bad('14_030', 'Auto Rescue needs a merchantOrderReference');
    return null;
  }

  /** `POST /sessions`; amount 2409 makes the session, then drops the connection before answering. */
  create(body: Record<string, any>): FakeAnswer {
    const problem = this.problem(body);
    if (problem) return problem;
    const id = `CS${String(++this.sequence).padStart(14, '0')}`;
    const session: FakeSession = {
      id,
      status: 'active',
      amount: body.amount,
      reference: body.reference,
      returnUrl: body.returnUrl,
      allowed: body.allowedPaymentMethods ?? [],
      additionalData: body.additionalData ?? {},
      result: null,
      pspReference: null,
    };
    this.sessions.set(id, session);
    if (body.amount.value === 2409) return { drop: true };
    return { status: 201, json: this.answerOf(session, body) };
  }

  private answerOf(session: FakeSession, body: Record<string, any>) {
    return {
      id: session.id,
      url: `${this.url()}/hosted/${session.id}`,
      mode: body?.mode ?? 'hosted',
      amount: session.amount,
      reference: session.reference,
      returnUrl: session.returnUrl,
      merchantAccount: body?.merchantAccount,
      expiresAt: new Date(Date.now() + 3600_000).toISOString(),
      sessionData: `Ab02b4c0!${Buffer.from(session.id).toString('base64')}`,
    };
  }

  /** The reply a retried creation replays when the first answer was dropped. */
  lastCreated(): FakeAnswer {
    const session = [...this.sessions.values()].at(-1)!;
    return { status: 201, json: this.answerOf(session, { mode: 'hosted' }) };
  }

  /** Adyen's page: `answer=Y` pays (the buyer gave an IBAN), else cancels; then back to `returnUrl`. */
  page(path: string): FakeAnswer {
    const [id, query = ''] = path.slice('/hosted/'.length).split('?');
    const session = this.sessions.get(id!);
    if (session?.status !== 'active') return { status: 404, json: {} };
    if (new URLSearchParams(query).get('answer') === 'Y') {
      session.status = 'completed';
      session.pspReference = this.pay(session);
    } else session.status = 'canceled';
    session.result = `res${randomBytes(12).toString('hex')}`;
    const back = new URL(session.returnUrl);
    back.searchParams.set('sessionId', session.id);
    back.searchParams.set('sessionResult', session.result);
    return { status: 302, json: {}, headers: { location: back.toString() } };
  }

  /** `GET /sessions/{id}?sessionResult=`: the outcome, for the result token Adyen gave that buyer only. */
  result(path: string): FakeAnswer {
    const url = new URL(path, 'http://fake');
    const session = this.sessions.get(decodeURIComponent(url.pathname.split('/').at(-1)!));
    const result = url.searchParams.get('sessionResult');
    if (!session || !result || result !== session.result) return bad('14_018', 'Invalid payload provided');
    return {
      status: 200,
      json: {
        id: session.id,
        status: session.status,
        reference: session.reference,
        payments: session.pspReference
          ? [
              {
                pspReference: session.pspReference,
                resultCode: 'Authorised',
                amount: session.amount,
                paymentMethod: { type: session.allowed[0] },
              },
            ]
          : [],
      },
    };
  }
}
