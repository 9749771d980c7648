import type { RequestContext } from '../../../context.ts';
import {
  activeAntiFraudService,
  decideAntiFraud,
  type AntiFraudResult,
} from '../../anti-fraud-services/anti-fraud-decision.service.ts';
import { peekCheckoutSessionCard } from '../../checkout-sessions/checkout-sessions.service.ts';
import type { CreateTransactionBody } from '../create-transaction.schema.ts';
import { antiFraudOrderOf, type AntiFraudInstrument } from './anti-fraud-order.ts';
import { resolveInstrument } from './instrument.ts';
import { buyerSnapshot } from './prepare-transaction.ts';

/**
 * The configured anti-fraud service's decision on a payment recorded inside one database
 * transaction (gift cards, checkout sessions, wallets, network tokens, redirects), asked on the pool
 * before that transaction opens (STYLE D4; decision 0144). The instrument and the buyer are read
 * here as the transaction will read them, writing nothing: a checkout session's card is read
 * without being used up (BIN, last four, brand: all a real service is ever given), a stored card's
 * held security code is left. Null without a configured service: the sandbox's built-in service,
 * which needs no network, decides inside the transaction as before (its test cards need the number
 * a checkout session gives up only there).
 */
export async function screenBeforeTransaction(
  ctx: RequestContext,
  body: CreateTransactionBody,
  ipAddress: string | null,
  transactionId: string,
): Promise<AntiFraudResult | null> {
  const db = ctx.deps.db;
  if (!(await activeAntiFraudService(db, ctx))) return null;
  const form = body.payment_method;
  const resolved = form ? await instrumentOf(ctx, form) : null;
  const stored = resolved?.paymentMethodId
    ? { id: resolved.paymentMethodId, owner: resolved.ownerBuyerId ?? null }
    : null;
  const buyer = await buyerSnapshot(db, ctx, body, stored);
  const country = resolved?.redirectCountry ?? body.country ?? null;
  return decideAntiFraud(
    db,
    ctx,
    antiFraudOrderOf(transactionId, { ...body, country }, resolved, buyer.snapshot, ipAddress),
    { remote: true, connectionOptions: body.connection_options },
  );
}

type Screened = AntiFraudInstrument & {
  paymentMethodId: string | null;
  ownerBuyerId?: string | null;
  redirectCountry?: string;
};

async function instrumentOf(
  ctx: RequestContext,
  form: NonNullable<CreateTransactionBody['payment_method']>,
): Promise<Screened> {
  if (form.method !== 'checkout-session') {
    const resolved = await resolveInstrument(ctx.deps.db, ctx, form, { deferHeldCode: true });
    const redirect = resolved.instrument.kind === 'redirect' ? resolved.instrument.country : undefined;
    return { ...resolved, ...(redirect ? { redirectCountry: redirect } : {}) };
  }
  const card = await peekCheckoutSessionCard(ctx.deps.db, ctx, form.id);
  if (card.method === 'id')
    return resolveInstrument(ctx.deps.db, ctx, { method: 'id', id: card.paymentMethodId }, { deferHeldCode: true });
  return {
    method: 'card',
    cardNumber: null,
    bin: card.bin,
    last4: card.last4,
    snapshot: { scheme: card.scheme, expiration_date: card.expirationDate },
    paymentMethodId: null,
  };
}
