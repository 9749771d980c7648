import type { FakeAnswer, FakeRequest } from './fake-server.ts';
import { minorOf, notFound, paypalError } from './paypal-fake-state.ts';

/**
 * The PayPal fake's Payouts API v1 (developer.paypal.com/docs/api/payments.payouts-batch/v1), as
 * PayPal documents it: `POST /v1/payments/payouts` (a batch: `sender_batch_header` with
 * `sender_batch_id`, items with `recipient_type`, `receiver`, `amount {value, currency}`), answered
 * 201 with the batch `PENDING`; `GET /v1/payments/payouts/{batch id}` (the batch with its items);
 * `GET /v1/payments/payouts-item/{item id}`. A `sender_batch_id` used before is refused (400
 * USER_BUSINESS_ERROR with a link to the original batch), while the same PayPal-Request-Id gets the
 * first answer again. Items stay `PENDING` until `complete()` pays them, as PayPal does afterwards.
 *
 * Outcomes by the item's amount (minor units):
 *
 * | amount | outcome |
 * |---|---|
 * | 3051 | the batch is DENIED at once (the sender's balance is too low) |
 * | 3005 | the item becomes BLOCKED (errors.name RISK_DECLINE) |
 * | 3096 | the item becomes FAILED (errors.name RECEIVER_ACCOUNT_LOCKED) |
 * | 3408 | the batch is made, then the connection is dropped before the answer |
 * | other | the item becomes SUCCESS; to a receiver that is no payer id of the fake: UNCLAIMED |
 */

type Json = { status: number; json: unknown };

export interface PayoutItem {
  payout_item_id: string;
  transaction_status: string;
  payout_batch_id: string;
  sender_batch_id: string;
  payout_item: Record<string, unknown>;
  errors?: { name: string; message: string };
  minor: number;
}
export interface PayoutBatch {
  id: string;
  status: string;
  senderBatchId: string;
  requestId: string | null;
  items: PayoutItem[];
}

const ITEM_OUTCOMES: Record<number, { status: string; errors?: { name: string; message: string } }> = {
  3005: { status: 'BLOCKED', errors: { name: 'RISK_DECLINE', message: 'The payout was blocked by PayPal' } },
  3096: {
    status: 'FAILED',
    errors: { name: 'RECEIVER_ACCOUNT_LOCKED', message: "The receiver's account is locked or inactive" },
  },
};

/** The item webhook PayPal sends for each final status. */
export const ITEM_EVENTS: Record<string, string> = {
  SUCCESS: 'PAYMENT.PAYOUTS-ITEM.SUCCEEDED',
  FAILED: 'PAYMENT.PAYOUTS-ITEM.FAILED',
  BLOCKED: 'PAYMENT.PAYOUTS-ITEM.BLOCKED',
  UNCLAIMED: 'PAYMENT.PAYOUTS-ITEM.UNCLAIMED',
};

export class PaypalPayouts {
  readonly batches = new Map<string, PayoutBatch>();
  private readonly replies = new Map<string, FakeAnswer>();
  private sequence = 0;

  constructor(
    private readonly base: () => string,
    /** The payer ids the fake's buyers approved orders with (a payout to another id is unclaimed). */
    private readonly payers: () => Set<string>,
  ) {}

  private id(prefix: string): string {
    this.sequence += 1;
    return `${prefix}${String(this.sequence).padStart(11, '0')}`.slice(0, 13);
  }

  handle(req: FakeRequest, url: URL): FakeAnswer {
    const parts = url.pathname.split('/').filter(Boolean);
    if (req.method === 'POST' && url.pathname === '/v1/payments/payouts') {
      const requestId = req.headers['paypal-request-id'];
      const key = typeof requestId === 'string' && requestId ? requestId : null;
      const replay = key ? this.replies.get(key) : undefined;
      if (replay) return replay;
      const answer = this.create(req.body ? JSON.parse(req.body) : {}, key);
      if (key && answer.status < 500) this.replies.set(key, answer);
      // 3408: the batch is made, then the connection drops before the answer (a replay gets it).
      const made =
        answer.status === 201 ? this.batches.get(String((answer.json as any).batch_header.payout_batch_id)) : null;
      return made?.items.some((i) => i.minor === 3408) ? { drop: true } : answer;
    }
    if (req.method === 'GET' && parts[2] === 'payouts' && parts[3]) {
      const batch = this.batches.get(parts[3]);
      return batch ? { status: 200, json: this.view(batch) } : notFound();
    }
    if (req.method === 'GET' && parts[2] === 'payouts-item' && parts[3]) {
      const item = [...this.batches.values()].flatMap((b) => b.items).find((i) => i.payout_item_id === parts[3]);
      return item ? { status: 200, json: this.itemView(item) } : notFound();
    }
    return notFound();
  }

  private create(body: Record<string, any>, requestId: string | null): Json {
    const header = body.sender_batch_header;
    const items = body.items as Array<Record<string, any>> | undefined;
    if (
      typeof header?.sender_batch_id !== 'string' ||
      !Array.isArray(items) ||
      items.length < 1 ||
      items.length > 15000
    )
      return paypalError(400, 'VALIDATION_ERROR', 'MISSING_REQUIRED_PARAMETER') as Json;
    const used = [...this.batches.values()].find((b) => b.senderBatchId === header.sender_batch_id);
    if (used)
      return {
        status: 400,
        json: {
          name: 'USER_BUSINESS_ERROR',
          message: 'User business error.',
          debug_id: 'fdpayouts0001',
          details: [
            { field: 'SENDER_BATCH_ID', location: 'body', issue: 'Batch with given sender_batch_id already exists' },
          ],
          links: [{ href: `${this.base()}/v1/payments/payouts/${used.id}`, rel: 'self', method: 'GET' }],
        },
      };
    const parsed: PayoutItem[] = [];
    const batchId = this.id('PB');
    for (const item of items) {
      const type = item.recipient_type ?? header.recipient_type;
      const minor = minorOf({ currency_code: item.amount?.currency, value: item.amount?.value });
      if (!['EMAIL', 'PHONE', 'PAYPAL_ID'].includes(type) || typeof item.receiver !== 'string' || !item.receiver)
        return paypalError(400, 'VALIDATION_ERROR', 'INVALID_RECEIVER') as Json;
      if (minor === null) return paypalError(400, 'VALIDATION_ERROR', 'DECIMAL_PRECISION') as Json;
      parsed.push({
        payout_item_id: this.id('PI'),
        transaction_status: 'PENDING',
        payout_batch_id: batchId,
        sender_batch_id: header.sender_batch_id,
        payout_item: {
          recipient_type: type,
          amount: item.amount,
          receiver: item.receiver,
          ...(item.note ? { note: item.note } : {}),
          ...(item.sender_item_id ? { sender_item_id: item.sender_item_id } : {}),
          recipient_wallet: 'PAYPAL',
        },
        minor,
      });
    }
    const denied = parsed.some((i) => i.minor === 3051);
    const batch: PayoutBatch = {
      id: batchId,
      status: denied ? 'DENIED' : 'PENDING',
      senderBatchId: header.sender_batch_id,
      requestId,
      items: denied ? [] : parsed,
    };
    this.batches.set(batch.id, batch);
    // The create answer has the header and links only; GET reads the items.
    return {
      status: 201,
      json: { batch_header: this.header(batch), links: [this.selfLink(batch)] },
    };
  }

  /** PayPal pays the batch's items: each gets its final status; the item resources for webhooks. */
  complete(batchId: string): PayoutItem[] {
    const batch = this.batches.get(batchId);
    if (!batch) throw new Error(`no payout batch ${batchId}`);
    for (const item of batch.items) {
      if (item.transaction_status !== 'PENDING') continue;
      const known = this.payers().has(String(item.payout_item.receiver));
      const outcome = ITEM_OUTCOMES[item.minor] ?? { status: known ? 'SUCCESS' : 'UNCLAIMED' };
      item.transaction_status = outcome.status;
      if (outcome.errors) item.errors = outcome.errors;
    }
    batch.status = 'SUCCESS';
    return batch.items;
  }

  itemView(item: PayoutItem): Record<string, unknown> {
    const { minor: _minor, ...view } = item;
    return {
      ...view,
      links: [{ href: `${this.base()}/v1/payments/payouts-item/${item.payout_item_id}`, rel: 'item', method: 'GET' }],
    };
  }

  private header(batch: PayoutBatch) {
    return {
      payout_batch_id: batch.id,
      batch_status: batch.status,
      sender_batch_header: { sender_batch_id: batch.senderBatchId },
    };
  }

  private selfLink(batch: PayoutBatch) {
    return { href: `${this.base()}/v1/payments/payouts/${batch.id}`, rel: 'self', method: 'GET' };
  }

  private view(batch: PayoutBatch): Record<string, unknown> {
    return {
      batch_header: this.header(batch),
      items: batch.items.map((i) => this.itemView(i)),
      links: [this.selfLink(batch)],
    };
  }
}
