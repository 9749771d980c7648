import { createHmac } from 'node:crypto';
import { AdyenReportBook, type AdyenBooking, type AdyenFakeReport } from './adyen-fake-reports.ts';
import { KLARNA_TYPES, klarnaModificationProblem, klarnaPaymentProblem } from './adyen-fake-klarna.ts';
import { AdyenFakeSessions, type FakeSession } from './adyen-fake-sessions.ts';
import { idealProblem, splitsProblem } from './adyen-fake-splits.ts';
import { startFakeServer, type FakeAnswer, type FakeRequest, type FakeServer } from './fake-server.ts';

/**
 * A local Adyen Checkout API v71, from Adyen's documented request and response examples
 * (docs.adyen.com: /payments, /payments/details, /payments/{pspReference}/captures, /cancels,
 * /refunds, /paymentMethods; API idempotency; error codes). It checks the X-API-Key, the merchant
 * account, the Idempotency-Key, the amount in Adyen's minor units, the capture mode, and the shape
 * of Apple Pay and Google Pay tokens passed on for Adyen to decrypt.
 *
 * Idempotency: a repeated key replays the first answer, as Adyen documents ("If the Adyen payments
 * platform already processed the request, the response to the first attempt will be returned",
 * docs.adyen.com/development-resources/api-idempotency). Adyen's page documents no comparison of the
 * bodies, so the fake replays a repeated key whatever the body, and lists each such reuse in
 * `reusedWithOtherBody`: tests assert that only the authorization's status probe (the same key
 * without the card, docs/connectors-adyen-braintree.md) does it, so a retried capture, refund or
 * cancel whose body drifted cannot pass unseen. Adyen's idempotency is opt-in (a POST without the
 * header is processed, not idempotently); the fake is stricter than Adyen there: it refuses a POST
 * that can move money without an Idempotency-Key (400, errorCode `fake_missing_idempotency_key`),
 * because the connector must send the attempt id on every one (docs/connectors.md).
 *
 * Settlement: every capture (an automatic one too), refund and dispute (`dispute()`) is booked for
 * the next payout batch; `closeBatch()` writes that batch's Settlement details report, served on the
 * report host path to a report user, and `reportAvailable()` makes its signed REPORT_AVAILABLE
 * notification (adyen-fake-reports.ts).
 *
 * Payment methods: iDEAL (adyen-fake-splits.ts) and Klarna (adyen-fake-klarna.ts: the order's
 * lines) always send the buyer to the method's page first (`<fake>/3ds/<psp>`: `?answer=Y`
 * approves; N cancels, a Klarna refusal for Klarna); SEPA Direct Debit goes through Hosted Checkout
 * sessions (adyen-fake-sessions.ts: `<fake>/hosted/<session>`), paid and captured at once. Signed
 * webhooks: adyen-fake-webhooks.ts.
 *
 * It decides outcomes by amount:
 *
 * | value | answer |
 * |---|---|
 * | 2005 | Refused, refusalReasonCode 2 |
 * | 2051 | Refused, refusalReasonCode 12 (Not enough balance) |
 * | 2024 | Refused, refusalReasonCode 24 (CVC Declined), cvcResult 2 |
 * | 2101 | HTTP 422, errorCode 101 (Invalid card number) |
 * | 2300 | RedirectShopper (3DS): the buyer's page is `<fake>/3ds/<id>` |
 * | 2408 | Authorised, answered after `slowMs` |
 * | 2409 | Authorised, then the connection is dropped before the answer |
 * | 2429 | HTTP 429 |
 * | 2500 | HTTP 500 |
 * | other | Authorised |
 */

export const ADYEN_FAKE_KEY = 'AQE_test_api_key';
export const ADYEN_FAKE_MERCHANT = 'SvcTestECOM';

interface Payment {
  pspReference: string;
  value: number;
  currency: string;
  manualCapture: boolean;
  status: 'authorised' | 'redirect' | 'refused';
  captured: number;
  refunded: number;
  returnUrl: string;
  reference: string;
}

export interface AdyenFake extends FakeServer {
  /** The base URL to configure (`CONNECTOR_BASE_URLS=adyen-card=<baseUrl>`). */
  baseUrl: string;
  payments: Map<string, Payment>;
  /** How long the slow amount waits (ms). */
  slowMs: number;
  /** The next POST /payments answers this status, once. */
  failNext(status: 401 | 429 | 500): void;
  /** The JSON bodies the fake received on a path suffix. */
  bodies(pathSuffix: string): Array<Record<string, any>>;
  /** Requests that repeated an Idempotency-Key with another body (or path) than its first: answered with the first reply. */
  reusedWithOtherBody: Array<{ key: string; path: string }>;
  /** The report host's base to configure (`CONNECTOR_BASE_URLS=adyen-card-reports=<reportBaseUrl>`). */
  reportBaseUrl: string;
  /** Captures, refunds and disputes as they will appear in the next settlement report. */
  bookings: AdyenBooking[];
  /** A dispute on a payment (Chargeback, SecondChargeback or ChargebackReversed), for its full amount unless given. */
  dispute(
    paymentPsp: string,
    type?: 'Chargeback' | 'SecondChargeback' | 'ChargebackReversed',
    value?: number,
  ): AdyenBooking;
  /** Closes the payout batch: its Settlement details report, served from now on (adyen-fake-reports.ts). */
  closeBatch(at?: Date): AdyenFakeReport;
  /** The signed REPORT_AVAILABLE notification of a report file. */
  reportAvailable(fileName: string, hexKey: string): Record<string, unknown>;
  /** Hosted Checkout sessions (SEPA Direct Debit), by id. */
  sessions: Map<string, FakeSession>;
  /**
   * The buyer approves an iDEAL payment at the bank without coming back to the return URL: Adyen
   * authorises and captures it, and sends its signed AUTHORISATION notification (returned here).
   */
  approveAtBank(pspReference: string, hexKey: string): Record<string, unknown>;
}

const error = (status: number, errorCode: string, message: string, errorType: string): FakeAnswer => ({
  status,
  json: { status, errorCode, message, errorType, pspReference: 'ERR0000000000001' },
});

/** POSTs that can move money: a payment, its 3DS completion, a capture, cancel or refund. */
const MONEY_MOVING = /^\/v71\/(sessions|payments(\/details|\/[^/]+\/(captures|cancels|refunds))?)$/;

/** A body's JSON with its keys sorted, to compare two bodies by content. */
const canonical = (value: unknown): string =>
  Array.isArray(value)
    ? `[${value.map(canonical).join(',')}]`
    : value && typeof value === 'object'
      ? `{${Object.keys(value)
          .sort()
          .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
          .join(',')}}`
      : JSON.stringify(value);

const json = (text: unknown): Record<string, any> | null => {
  try {
    const value = typeof text === 'string' ? JSON.parse(text) : null;
    return typeof value === 'object' && value !== null ? value : null;
  } catch {
    return null;
  }
};

/**
 * Wallet tokens for Adyen to decrypt ("Apple Pay for API only", "Google Pay for API only"):
 * `applePayToken` is the base64 of Apple's `paymentData` JSON, `googlePayToken` Google's token JSON
 * text. The fake holds no wallet keys, so it checks their shape only (what it can see without them).
 */
function walletTokenProblem(pm: Record<string, any>): FakeAnswer | null {
  if (pm.type === 'applepay') {
    const data =
      typeof pm.applePayToken === 'string' && /^[A-Za-z0-9+/]+={0,2}$/.test(pm.applePayToken)
        ? json(Buffer.from(pm.applePayToken, 'base64').toString('utf8'))
        : null;
    const ok =
      data &&
      ['EC_v1', 'RSA_v1'].includes(data.version) &&
      typeof data.data === 'string' &&
      typeof data.signature === 'string' &&
      typeof data.header?.transactionId === 'string';
    return ok
      ? null
      : error(
          422,
          '14_030',
          'Invalid Apple Pay token: applePayToken must be the base64 of the paymentData JSON',
          'validation',
        );
  }
  const token = json(pm.googlePayToken);
  const ok =
    token &&
    token.protocolVersion === 'ECv2' &&
    typeof token.signedMessage === 'string' &&
    typeof token.signature === 'string' &&
    typeof token.intermediateSigningKey?.signedKey === 'string';
  return ok
    ? null
    : error(422, '14_030', 'Invalid Google Pay token: googlePayToken must be the token JSON text', 'validation');
}

/** Adyen's state and answers: payments, stored cards, replies kept per idempotency key. */
class AdyenSimulation {
  readonly payments = new Map<string, Payment>();
  /** The first reply under each key, with the request it answered (path and canonical body). */
  private readonly replies = new Map<string, { answer: FakeAnswer; path: string; body: string }>();
  readonly reusedWithOtherBody: Array<{ key: string; path: string }> = [];
  private readonly stored = new Map<string, string>();
  private sequence = 0;
  /** The pspReferences of iDEAL payments (the buyer's refusal at the bank is a cancel, not a 3DS refusal). */
  private readonly ideal = new Set<string>();
  /** The pspReferences of Klarna payments (their captures and refunds carry the order's lines). */
  private readonly klarna = new Set<string>();
  readonly hosted = new AdyenFakeSessions(
    (session) => this.paySession(session),
    () => this.url,
  );
  slowMs = 1000;
  url = '';
  /** A status the next POST /payments answers with (401, 429, 500), once. */
  fault: 401 | 429 | 500 | null = null;
  readonly book = new AdyenReportBook(ADYEN_FAKE_MERCHANT);
  private disputes = 0;

  /** A capture, refund or dispute booked for the next settlement batch. */
  private bookOf(
    payment: Payment,
    type: AdyenBooking['type'],
    modificationPsp: string,
    value: number,
    modificationReference: string,
  ): AdyenBooking {
    const booking = {
      type,
      paymentPsp: payment.pspReference,
      modificationPsp,
      merchantReference: payment.reference,
      modificationReference,
      value,
      currency: payment.currency,
    };
    this.book.bookings.push(booking);
    return booking;
  }

  /** An automatic capture (captureDelayHours 0) settles as Adyen's own capture of the payment. */
  private autoCaptured(payment: Payment): void {
    if (!payment.manualCapture && payment.status === 'authorised')
      this.bookOf(payment, 'Settled', `CAP${payment.pspReference.slice(3)}`, payment.value, payment.reference);
  }

  approveAtBank(pspReference: string, hexKey: string): Record<string, unknown> {
    const payment = this.payments.get(pspReference);
    if (payment?.status !== 'redirect' || !this.ideal.has(pspReference))
      throw new Error(`no iDEAL payment ${pspReference} waiting at the bank`);
    payment.status = 'authorised';
    payment.captured = payment.value;
    this.autoCaptured(payment);
    // docs.adyen.com/development-resources/webhooks/webhook-types: AUTHORISATION names the payment
    // in pspReference and our reference in merchantReference; both are among the signed fields.
    const item = {
      amount: { currency: payment.currency, value: payment.value },
      eventCode: 'AUTHORISATION',
      eventDate: new Date().toISOString(),
      merchantAccountCode: ADYEN_FAKE_MERCHANT,
      merchantReference: payment.reference,
      paymentMethod: 'ideal',
      pspReference,
      success: 'true',
    };
    const signed = [pspReference, '', item.merchantAccountCode, item.merchantReference, payment.value]
      .concat([payment.currency, item.eventCode, item.success])
      .join(':');
    const hmacSignature = createHmac('sha256', Buffer.from(hexKey, 'hex')).update(signed, 'utf8').digest('base64');
    return {
      live: 'false',
      notificationItems: [{ NotificationRequestItem: { ...item, additionalData: { hmacSignature } } }],
    };
  }

  dispute(
    paymentPsp: string,
    type: 'Chargeback' | 'SecondChargeback' | 'ChargebackReversed' = 'Chargeback',
    value?: number,
  ): AdyenBooking {
    const payment = this.payments.get(paymentPsp);
    if (!payment) throw new Error(`no payment ${paymentPsp}`);
    return this.bookOf(
      payment,
      type,
      `DSP${String(++this.disputes).padStart(13, '0')}`,
      value ?? payment.captured,
      `dispute-${this.disputes}`,
    );
  }

  /** A Hosted Checkout session paid by SEPA Direct Debit: authorised and captured at once (Adyen's SEPA). */
  private paySession(session: FakeSession): string {
    this.authorise(
      {
        amount: session.amount,
        reference: session.reference,
        returnUrl: session.returnUrl,
        paymentMethod: { type: session.allowed[0] },
      },
      false,
    );
    return [...this.payments.keys()].at(-1)!;
  }

  private psp(): string {
    return `PSP${String(++this.sequence).padStart(13, '0')}`;
  }

  private authorise(body: Record<string, any>, redirect: boolean): FakeAnswer {
    const pspReference = this.psp();
    const value = body.amount.value as number;
    const manualCapture = body.additionalData?.manualCapture === 'true';
    this.payments.set(pspReference, {
      pspReference,
      value,
      currency: body.amount.currency,
      manualCapture,
      status: redirect ? 'redirect' : 'authorised',
      captured: manualCapture ? 0 : value,
      refunded: 0,
      returnUrl: body.returnUrl,
      reference: body.reference,
    });
    this.autoCaptured(this.payments.get(pspReference)!);
    if (redirect)
      return {
        status: 200,
        json: {
          resultCode: 'RedirectShopper',
          action: {
            paymentMethodType: body.paymentMethod?.type ?? 'scheme',
            url: `${this.url}/3ds/${pspReference}`,
            method: 'GET',
            type: 'redirect',
          },
        },
      };
    const pm = body.paymentMethod ?? {};
    const additionalData: Record<string, string> = {
      authCode: '064381',
      avsResult: '7 Both postal code and address match',
      cvcResult: pm.cvc ? '1 Matches' : '6 No CVC/CVV provided',
      networkTxReference: `NTR${pspReference.slice(3)}`,
      merchantAdviceCode: '',
    };
    if (body.storePaymentMethod) {
      const id = `SPM${pspReference.slice(3)}`;
      this.stored.set(id, body.shopperReference);
      additionalData['tokenization.storedPaymentMethodId'] = id;
      additionalData['tokenization.shopperReference'] = body.shopperReference;
    }
    return {
      status: 200,
      json: {
        pspReference,
        resultCode: 'Authorised',
        merchantReference: body.reference,
        amount: body.amount,
        additionalData,
      },
    };
  }

  /** What is wrong with a `/payments` body, as Adyen's 422, or null. */
  private invalid(body: Record<string, any>): FakeAnswer | null {
    if (!body.paymentMethod)
      return error(422, '14_030', "Required field 'paymentMethod' is not provided.", 'validation');
    if (!Number.isInteger(body.amount?.value) || !/^[A-Z]{3}$/.test(body.amount?.currency ?? ''))
      return error(422, '137', 'Invalid amount specified', 'validation');
    if (!body.returnUrl) return error(422, '14_029', "Required field 'returnUrl' is not provided.", 'validation');
    const splits = splitsProblem(body.splits, body.amount);
    if (splits) return splits;
    const pm = body.paymentMethod;
    if (pm.type === 'ideal') return idealProblem(body);
    if (KLARNA_TYPES.has(pm.type)) return klarnaPaymentProblem(body);
    if (pm.type === 'applepay' || pm.type === 'googlepay') return walletTokenProblem(pm);
    if (pm.storedPaymentMethodId)
      return this.stored.get(pm.storedPaymentMethodId) === body.shopperReference
        ? null
        : error(422, '800', 'Contract not found', 'validation');
    const reference = body.additionalData?.networkTxReference === undefined ? null : this.referenceProblem(body);
    if (reference) return reference;
    if (
      pm.type !== 'scheme' ||
      !/^\d{12,19}$/.test(pm.number ?? '') ||
      !/^\d{2}$/.test(pm.expiryMonth ?? '') ||
      !/^\d{4}$/.test(pm.expiryYear ?? '')
    )
      return error(422, '14_030', 'Invalid card details', 'validation');
    return null;
  }

  /**
   * `additionalData.networkTxReference`: the scheme's id of the customer-initiated payment a
   * merchant-initiated one with card details Adyen did not store follows. Adyen classifies it as
   * merchant-initiated only with `shopperInteraction: ContAuth` and `recurringProcessingModel`
   * `Subscription` or `UnscheduledCardOnFile` (its networkTxReference field description); the fake
   * refuses anything else rather than charge a misflagged payment (stricter than Adyen).
   */
  private referenceProblem(body: Record<string, any>): FakeAnswer | null {
    const reference = body.additionalData.networkTxReference;
    if (typeof reference !== 'string' || !/^\w{1,100}$/.test(reference))
      return error(422, '14_030', 'Invalid networkTxReference', 'validation');
    if (
      body.shopperInteraction !== 'ContAuth' ||
      !['Subscription', 'UnscheduledCardOnFile'].includes(body.recurringProcessingModel)
    )
      return error(
        422,
        'fake_not_merchant_initiated',
        'networkTxReference needs shopperInteraction ContAuth and recurringProcessingModel Subscription or UnscheduledCardOnFile',
        'validation',
      );
    return null;
  }

  private pay(body: Record<string, any>): FakeAnswer {
    const invalid = this.invalid(body);
    if (invalid) return invalid;
    // iDEAL: always the bank's page first (the buyer answers there: Y approves, N refuses).
    const type = body.paymentMethod.type;
    if ((type === 'ideal' || KLARNA_TYPES.has(type)) && body.amount.value !== 2409) {
      const answer = this.authorise(body, true);
      (type === 'ideal' ? this.ideal : this.klarna).add([...this.payments.keys()].at(-1)!);
      return answer;
    }
    if (KLARNA_TYPES.has(type)) this.klarna.add(`PSP${String(this.sequence + 1).padStart(13, '0')}`);
    const refused = (code: string, reason: string, extra: Record<string, string> = {}): FakeAnswer => ({
      status: 200,
      json: {
        pspReference: this.psp(),
        resultCode: 'Refused',
        refusalReason: reason,
        refusalReasonCode: code,
        merchantReference: body.reference,
        additionalData: extra,
      },
    });
    switch (body.amount.value as number) {
      case 2005:
        return refused('2', 'Refused');
      case 2051:
        return refused('12', 'Not enough balance');
      case 2024:
        return refused('24', 'CVC Declined', { cvcResult: '2 Does not match' });
      case 2101:
        return error(422, '101', 'Invalid card number', 'validation');
      case 2429:
        return error(429, '000', 'Too many requests', 'security');
      case 2500:
        return error(500, '905', 'Payment details are not supported', 'internal');
      case 2300:
        return this.authorise(body, true);
      case 2408:
        return { ...(this.authorise(body, false) as { status: number; json: unknown }), delayMs: this.slowMs };
      case 2409:
        this.authorise(body, false);
        return { drop: true };
      default:
        return this.authorise(body, false);
    }
  }

  private details(body: Record<string, any>): FakeAnswer {
    const [outcome, pspReference] = String(body.details?.redirectResult ?? '').split('.');
    const payment = pspReference ? this.payments.get(pspReference) : undefined;
    if (payment?.status !== 'redirect') return error(422, '14_018', 'Invalid payload provided', 'validation');
    if (outcome !== 'Y' && this.ideal.has(pspReference!)) {
      // iDEAL: the buyer cancelled at the bank (Adyen's resultCode Cancelled, no refusal reason).
      payment.status = 'refused';
      return { status: 200, json: { pspReference, resultCode: 'Cancelled', merchantReference: payment.reference } };
    }
    if (outcome !== 'Y' && this.klarna.has(pspReference!)) {
      // Klarna's risk check refused the buyer (Adyen's Refused, reason 2).
      payment.status = 'refused';
      return {
        status: 200,
        json: {
          pspReference,
          resultCode: 'Refused',
          refusalReason: 'Refused',
          refusalReasonCode: '2',
          merchantReference: payment.reference,
        },
      };
    }
    if (outcome !== 'Y') {
      payment.status = 'refused';
      return {
        status: 200,
        json: {
          pspReference,
          resultCode: 'Refused',
          refusalReason: '3D Not Authenticated',
          refusalReasonCode: '11',
          merchantReference: payment.reference,
        },
      };
    }
    payment.status = 'authorised';
    if (!payment.manualCapture) payment.captured = payment.value;
    this.autoCaptured(payment);
    return {
      status: 200,
      json: {
        pspReference,
        resultCode: 'Authorised',
        merchantReference: payment.reference,
        additionalData: {
          authCode: '091233',
          cvcResult: '1 Matches',
          networkTxReference: `NTR${pspReference!.slice(3)}`,
        },
      },
    };
  }

  private modification(pspReference: string, kind: string, body: Record<string, any>): FakeAnswer {
    const payment = this.payments.get(pspReference);
    if (payment?.status !== 'authorised')
      return error(422, '167', 'Original pspReference required for this operation', 'validation');
    const value = body.amount?.value as number;
    if (kind !== 'cancels' && (body.amount?.currency !== payment.currency || !Number.isInteger(value)))
      return error(422, '137', 'Invalid amount specified', 'validation');
    const splits = kind === 'cancels' ? null : splitsProblem(body.splits, body.amount);
    if (splits) return splits;
    const lines =
      kind !== 'cancels' && this.klarna.has(pspReference) ? klarnaModificationProblem(body, payment.value) : null;
    if (lines) return lines;
    if (kind === 'captures' && (!payment.manualCapture || payment.captured + value > payment.value))
      return error(422, '167', 'Insufficient balance on payment', 'validation');
    if (kind === 'refunds' && payment.refunded + value > payment.captured)
      return error(422, '167', 'Insufficient balance on payment', 'validation');
    if (kind === 'captures') payment.captured += value;
    if (kind === 'refunds') payment.refunded += value;
    const own = this.psp();
    if (kind !== 'cancels')
      this.bookOf(payment, kind === 'captures' ? 'Settled' : 'Refunded', own, value, body.reference);
    return {
      status: 201,
      json: {
        merchantAccount: body.merchantAccount,
        paymentPspReference: pspReference,
        pspReference: own,
        reference: body.reference,
        status: 'received',
        ...(body.amount ? { amount: body.amount } : {}),
      },
    };
  }

  /** The issuer's page: `?answer=Y` authenticates; Adyen then sends the buyer to returnUrl with redirectResult. */
  private issuerPage(path: string): FakeAnswer {
    const [id, query = ''] = path.slice(5).split('?');
    const payment = this.payments.get(id!);
    if (!payment) return { status: 404, json: {} };
    const back = new URL(payment.returnUrl);
    back.searchParams.set('redirectResult', `${new URLSearchParams(query).get('answer') === 'Y' ? 'Y' : 'N'}.${id}`);
    return { status: 302, json: {}, headers: { location: back.toString() } };
  }

  route(req: FakeRequest): FakeAnswer {
    if (req.method === 'GET' && req.path.startsWith('/3ds/')) return this.issuerPage(req.path);
    if (req.method === 'GET' && req.path.startsWith('/hosted/')) return this.hosted.page(req.path);
    if (req.method === 'GET' && req.path.startsWith('/reports/download/MerchantAccount/'))
      return this.book.download(req);
    if (this.fault && (req.path === '/v71/payments' || req.path === '/v71/sessions')) return this.injectedFault();
    if (req.headers['x-api-key'] !== ADYEN_FAKE_KEY)
      return error(401, '000', 'HTTP Status Response - Unauthorized', 'security');
    if (req.method === 'GET' && req.path.startsWith('/v71/sessions/')) return this.hosted.result(req.path);
    const body = JSON.parse(req.body || '{}') as Record<string, any>;
    if (req.path !== '/v71/payments/details' && body.merchantAccount !== ADYEN_FAKE_MERCHANT)
      return error(403, '901', 'Invalid Merchant Account', 'security');
    const key = req.headers['idempotency-key'] as string | undefined;
    if (!key && MONEY_MOVING.test(req.path))
      return error(
        400,
        'fake_missing_idempotency_key',
        `No Idempotency-Key on POST ${req.path}: the connector must send the attempt id on every call that can move money`,
        'validation',
      );
    const first = key ? this.replies.get(key) : undefined;
    if (first) {
      if (first.path !== req.path || first.body !== canonical(body))
        this.reusedWithOtherBody.push({ key: key!, path: req.path });
      return first.answer;
    }
    const answer = this.answerOf(req.path, body);
    // Rejected before processing (401/403/429) or failed (5xx): not kept, a retry is processed.
    if (key && ('drop' in answer || (answer.status < 500 && ![401, 403, 429].includes(answer.status))))
      this.replies.set(key, {
        answer:
          'drop' in answer
            ? req.path === '/v71/sessions'
              ? this.hosted.lastCreated()
              : this.lastPaymentReply()
            : { status: answer.status, json: answer.json },
        path: req.path,
        body: canonical(body),
      });
    return answer;
  }

  private injectedFault(): FakeAnswer {
    const status = this.fault!;
    this.fault = null;
    return status === 401
      ? error(401, '000', 'HTTP Status Response - Unauthorized', 'security')
      : status === 429
        ? error(429, '000', 'Too many requests', 'security')
        : error(500, '905', 'Internal error', 'internal');
  }

  /** A dropped answer was still made: a retry with the same key finds the payment Adyen recorded. */
  private lastPaymentReply(): FakeAnswer {
    const payment = [...this.payments.values()].at(-1)!;
    return {
      status: 200,
      json: {
        pspReference: payment.pspReference,
        resultCode: 'Authorised',
        merchantReference: payment.reference,
        additionalData: { authCode: '064381' },
      },
    };
  }

  private answerOf(path: string, body: Record<string, any>): FakeAnswer {
    if (path === '/v71/payments') return this.pay(body);
    if (path === '/v71/payments/details') return this.details(body);
    if (path === '/v71/sessions') return this.hosted.create(body);
    if (path === '/v71/paymentMethods')
      return {
        status: 200,
        json: { paymentMethods: [{ name: 'Cards', type: 'scheme', brands: ['visa', 'mc', 'amex'] }] },
      };
    const match = /^\/v71\/payments\/([^/]+)\/(captures|cancels|refunds)$/.exec(path);
    if (match) return this.modification(decodeURIComponent(match[1]!), match[2]!, body);
    return { status: 404, json: { status: 404, errorCode: '000', message: 'Not found', errorType: 'validation' } };
  }
}

export async function startAdyenFake(): Promise<AdyenFake> {
  const simulation = new AdyenSimulation();
  const server = await startFakeServer((req) => simulation.route(req));
  simulation.url = server.url;
  return {
    ...server,
    baseUrl: `${server.url}/v71`,
    payments: simulation.payments,
    get slowMs() {
      return simulation.slowMs;
    },
    set slowMs(ms: number) {
      simulation.slowMs = ms;
    },
    failNext: (status) => void (simulation.fault = status),
    bodies: (suffix) =>
      server.requests
        .filter((r) => r.path.endsWith(suffix) && r.method === 'POST')
        .map((r) => JSON.parse(r.body || '{}')),
    reusedWithOtherBody: simulation.reusedWithOtherBody,
    reportBaseUrl: `${server.url}/reports/download`,
    bookings: simulation.book.bookings,
    dispute: (psp, type, value) => simulation.dispute(psp, type, value),
    closeBatch: (at) => simulation.book.closeBatch(at),
    reportAvailable: (fileName, hexKey) => simulation.book.reportAvailable(fileName, server.url, hexKey),
    sessions: simulation.hosted.sessions,
    approveAtBank: (psp, hexKey) => simulation.approveAtBank(psp, hexKey),
  };
}
