import { randomBytes } from 'node:crypto';
import type { FakeCardScenario } from './stripe-fake-cards.ts';
import { bookCapture, bookRefund, type BalanceState } from './stripe-fake-balance.ts';

/** The fake's PaymentIntents, captures, cancels and refunds, answering Stripe's documented objects. */

export interface Reply {
  status: number;
  body: unknown;
  replayed?: boolean;
}

type Obj = Record<string, unknown>;

export interface FakeState {
  intents: Map<string, Obj>;
  refunds: Map<string, Obj>;
  paymentMethods: Map<
    string,
    { id: string; scenario: FakeCardScenario; last4: string; cvc: boolean; customer: string | null }
  >;
  customers: Map<string, Obj>;
  /** Balance transactions, disputes and payouts (stripe-fake-balance.ts). */
  balance: BalanceState;
  /** Per refund of a Connect charge: the transfer reversed and the application fee refunded (stripe-fake-connect.ts). */
  connectRefunds: Map<string, { transferReversed: number; applicationFeeRefunded: number }>;
  seq: number;
}

const idOf = (state: FakeState, prefix: string) => `${prefix}_${++state.seq}${randomBytes(8).toString('hex')}`;
const error = (status: number, type: string, message: string, extra: Obj = {}): Reply => ({
  status,
  body: { error: { type, message, ...extra } },
});
const expanded = (body: Obj) => Object.values((body.expand as Obj | undefined) ?? {}).includes('latest_charge');

/** The PaymentIntent as Stripe answers it: `latest_charge` an id, or the Charge when expanded. */
export function render(intent: Obj, expand: boolean): Obj {
  const charge = intent._charge as Obj | null;
  const { _charge, _scenario, _account, ...visible } = intent;
  void _scenario;
  void _account;
  return { ...visible, latest_charge: charge ? (expand ? charge : charge.id) : null };
}

export function chargeOf(
  state: FakeState,
  intent: Obj,
  pm: FakeState['paymentMethods'] extends Map<string, infer V> ? V : never,
): Obj {
  const s = pm.scenario.kind === 'approve' ? pm.scenario : {};
  return {
    id: idOf(state, 'ch'),
    object: 'charge',
    amount: intent.amount,
    amount_captured: 0,
    currency: intent.currency,
    captured: false,
    payment_intent: intent.id,
    outcome: {
      network_status: 'approved_by_network',
      reason: null,
      seller_message: 'Payment complete.',
      type: 'authorized',
      network_advice_code: null,
    },
    payment_method_details: {
      type: 'card',
      card: {
        last4: pm.last4,
        authorization_code: '123456',
        network_transaction_id: `${state.seq}`.padStart(15, '5'),
        checks: {
          cvc_check: pm.cvc ? ((s as { cvc?: string }).cvc ?? 'pass') : null,
          address_line1_check: (s as { line1?: string }).line1 ?? null,
          address_postal_code_check: (s as { postal?: string }).postal ?? null,
        },
      },
    },
  };
}

function decline(intent: Obj, code: string, declineCode: string | null, message: string): Reply {
  const lastError = { type: 'card_error', code, decline_code: declineCode, message };
  Object.assign(intent, { status: 'requires_payment_method', last_payment_error: lastError });
  return error(402, 'card_error', message, { code, decline_code: declineCode, payment_intent: render(intent, false) });
}

/** `POST /v1/payment_intents` with `confirm=true`: the card's scenario decides. */
export function confirmIntent(state: FakeState, body: Obj, baseUrl: string, connect: Obj = {}): Reply {
  const pm = state.paymentMethods.get(String(body.payment_method ?? ''));
  if (!pm)
    return error(400, 'invalid_request_error', `No such PaymentMethod: '${String(body.payment_method)}'`, {
      code: 'resource_missing',
      param: 'payment_method',
    });
  if (pm.customer && body.customer !== pm.customer)
    return error(400, 'invalid_request_error', 'The PaymentMethod is attached to another Customer', {
      param: 'customer',
    });
  if (body.confirm !== 'true') return error(400, 'invalid_request_error', 'The fake only supports confirm=true');
  const multicapture =
    (body.payment_method_options as { card?: { request_multicapture?: string } } | undefined)?.card
      ?.request_multicapture === 'if_available';
  const intent: Obj = {
    id: idOf(state, 'pi'),
    object: 'payment_intent',
    amount: Number(body.amount),
    amount_capturable: 0,
    amount_received: 0,
    currency: body.currency,
    capture_method: body.capture_method,
    status: 'processing',
    customer: body.customer ?? null,
    payment_method: pm.id,
    metadata: body.metadata ?? {},
    last_payment_error: null,
    next_action: null,
    livemode: false,
    created: Math.floor(Date.now() / 1000),
    _charge: null,
    _scenario: pm.scenario,
    _multicapture: multicapture,
    ...connect,
  };
  state.intents.set(String(intent.id), intent);
  const scenario = pm.scenario;
  if (scenario.kind === 'decline') return decline(intent, scenario.code, scenario.declineCode, scenario.message);
  if (scenario.kind === 'three-ds') {
    if (body.error_on_requires_action === 'true' || body.off_session === 'true')
      return decline(
        intent,
        'authentication_required',
        'authentication_required',
        'Your card was declined. This transaction requires authentication.',
      );
    const returnUrl = body.return_url ? String(body.return_url) : null;
    Object.assign(intent, {
      status: 'requires_action',
      next_action: returnUrl
        ? {
            type: 'redirect_to_url',
            redirect_to_url: { url: `${baseUrl}/3ds/${String(intent.id)}`, return_url: returnUrl },
          }
        : { type: 'use_stripe_sdk', use_stripe_sdk: {} },
    });
    return { status: 200, body: render(intent, expanded(body)) };
  }
  intent._charge = chargeOf(state, intent, pm);
  if (body.capture_method === 'manual')
    Object.assign(intent, { status: 'requires_capture', amount_capturable: intent.amount });
  else {
    Object.assign(intent, { status: 'succeeded', amount_received: intent.amount });
    Object.assign(intent._charge as Obj, { captured: true });
    bookCapture(state.balance, intent, intent._charge as Obj, Number(intent.amount), false);
  }
  return { status: 200, body: render(intent, expanded(body)) };
}

const unexpectedState = (intent: Obj, action: string) =>
  error(
    400,
    'invalid_request_error',
    `This PaymentIntent could not be ${action} because it has a status of ${String(intent.status)}.`,
    { code: 'payment_intent_unexpected_state', payment_intent: render(intent, false) },
  );

/** `POST /v1/payment_intents/{id}/capture`: partial, and several parts with multicapture. */
export function captureIntent(state: FakeState, id: string, body: Obj): Reply {
  const intent = state.intents.get(id);
  if (!intent)
    return error(404, 'invalid_request_error', `No such payment_intent: '${id}'`, { code: 'resource_missing' });
  if (intent.status !== 'requires_capture') return unexpectedState(intent, 'captured');
  const amount =
    body.amount_to_capture === undefined ? Number(intent.amount_capturable) : Number(body.amount_to_capture);
  if (!Number.isInteger(amount) || amount < 1 || amount > Number(intent.amount_capturable))
    return error(400, 'invalid_request_error', 'amount_to_capture must be at most the amount capturable', {
      code: 'amount_too_large',
      param: 'amount_to_capture',
    });
  const partOfMany = body.final_capture === 'false';
  if (partOfMany && !intent._multicapture)
    return error(400, 'invalid_request_error', 'Multicapture was not requested for this PaymentIntent', {
      param: 'final_capture',
    });
  const received = Number(intent.amount_received) + amount;
  Object.assign(
    intent,
    partOfMany
      ? { amount_received: received, amount_capturable: Number(intent.amount_capturable) - amount }
      : { amount_received: received, amount_capturable: 0, status: 'succeeded' },
  );
  (intent._charge as Obj).captured = true;
  bookCapture(state.balance, intent, intent._charge as Obj, amount, partOfMany || Boolean(intent._multicapture));
  return { status: 200, body: render(intent, expanded(body)) };
}

/** `POST /v1/payment_intents/{id}/cancel`. */
export function cancelIntent(state: FakeState, id: string): Reply {
  const intent = state.intents.get(id);
  if (!intent)
    return error(404, 'invalid_request_error', `No such payment_intent: '${id}'`, { code: 'resource_missing' });
  if (
    !['requires_payment_method', 'requires_capture', 'requires_confirmation', 'requires_action', 'processing'].includes(
      String(intent.status),
    )
  )
    return unexpectedState(intent, 'canceled');
  Object.assign(intent, { status: 'canceled', amount_capturable: 0, cancellation_reason: 'requested_by_customer' });
  return { status: 200, body: render(intent, false) };
}

/** `POST /v1/refunds` of a PaymentIntent: at most what was received and not refunded. */
export function createRefund(state: FakeState, body: Obj): Reply {
  const intent = state.intents.get(String(body.payment_intent ?? ''));
  if (!intent)
    return error(400, 'invalid_request_error', `No such payment_intent: '${String(body.payment_intent)}'`, {
      code: 'resource_missing',
      param: 'payment_intent',
    });
  const refunded = [...state.refunds.values()]
    .filter((r) => r.payment_intent === intent.id && r.status !== 'failed')
    .reduce((sum, r) => sum + Number(r.amount), 0);
  const left = Number(intent.amount_received) - refunded;
  const amount = body.amount === undefined ? left : Number(body.amount);
  if (left <= 0 || !Number.isInteger(amount) || amount < 1 || amount > left)
    return error(
      400,
      'invalid_request_error',
      `Refund amount (${amount}) is greater than the unrefunded amount (${left}).`,
      { code: 'amount_too_large', param: 'amount' },
    );
  const slow = (intent._scenario as FakeCardScenario).kind === 'refund-fails';
  const refund: Obj = {
    id: idOf(state, 're'),
    object: 'refund',
    amount,
    currency: intent.currency,
    payment_intent: intent.id,
    charge: (intent._charge as Obj | null)?.id ?? null,
    status: slow ? 'pending' : 'succeeded',
    reason: body.reason ?? null,
    failure_reason: null,
    transfer_reversal: null,
    metadata: body.metadata ?? {},
    created: Math.floor(Date.now() / 1000),
  };
  state.refunds.set(String(refund.id), refund);
  bookRefund(state.balance, refund);
  return { status: 200, body: refund };
}
