import { BraintreeSettlementSimulation } from './braintree-fake-settlements.ts';
import { startFakeServer, type FakeAnswer, type FakeRequest, type FakeServer } from './fake-server.ts';

/**
 * A local Braintree GraphQL API (2019-01-01), from Braintree's documented mutations and their
 * answers (tokenizeCreditCard, authorizeCreditCard, chargeCreditCard, captureTransaction,
 * reverseTransaction, refundTransaction, vaultPaymentMethod, node, search, ping) and its sandbox
 * rules. It checks Basic authentication, the Braintree-Version header, decimal amounts in the
 * merchant account's currency, and the orderId; outcomes follow Braintree's sandbox amounts:
 *
 * | amount (major units) | answer |
 * |---|---|
 * | 2000.00 – 2999.99 | PROCESSOR_DECLINED, processor response code = the whole amount |
 * | 3000.00 – 3000.99 | FAILED, code 3000 (processor network unavailable) |
 * | 4080.00 | AUTHORIZED, answered after `slowMs` |
 * | 4090.00 | AUTHORIZED, then the connection is dropped before the answer |
 * | 4290.00 | HTTP 429 (RESOURCE_LIMIT) |
 * | 5000.00 | HTTP 500 (INTERNAL), nothing created |
 * | other | AUTHORIZED (or SUBMITTED_FOR_SETTLEMENT when charged) |
 *
 * CVV `200` is a CVV mismatch, rejected by the gateway (GATEWAY_REJECTED, reason CVV).
 */

export const BRAINTREE_FAKE_KEYS = { public_key: 'pub_test_key', private_key: 'priv_test_key' };
/** Merchant accounts and their currencies; `default_usd` is the default account. */
const ACCOUNTS: Record<string, string> = { default_usd: 'USD', acme_eur: 'EUR', acme_jpy: 'JPY', acme_kwd: 'KWD' };

export interface BraintreeFakeTx {
  id: string;
  legacyId: string;
  orderId: string;
  status: string;
  amount: string;
  authorized: string;
  currency: string;
  merchantAccountId: string;
  kind: 'sale' | 'credit';
  refunded: number;
  history: Array<Record<string, unknown>>;
  /** The network's transaction id of an authorized card payment (`CreditCardTransactionDetails`). */
  networkTransactionId?: string | null;
  /** A refund (credit): the GraphQL id of the transaction it refunds (`refundedTransaction`). */
  refundedTransactionId?: string;
  /** Once disbursed (braintree-fake-settlements.ts): `disbursementDetails`. */
  disbursement?: {
    date: string | null;
    amount: { value: string; currencyCode: string } | null;
    exchangeRate: string | null;
    fundsHeld: boolean;
  } | null;
}
type Tx = BraintreeFakeTx;

export interface BraintreeFake extends FakeServer {
  baseUrl: string;
  transactions: Map<string, Tx>;
  slowMs: number;
  /** Captures settle at once (for scenarios that refund right after capturing). */
  settleOnCapture: boolean;
  /** The next request answers this status, once. */
  failNext(status: 401 | 429 | 500): void;
  /** The nightly settlement batch: everything submitted for settlement is settled (at `at`, default now). */
  settleAll(at?: string): void;
  /** Settlements, disbursements and disputes (braintree-fake-settlements.ts). */
  settlements: BraintreeSettlementSimulation;
  /** The variables of every GraphQL operation named `name` received. */
  calls(name: string): Array<Record<string, any>>;
}

const gqlError = (status: number, errorClass: string, message: string, legacyCode?: string): FakeAnswer => ({
  status,
  json: { data: null, errors: [{ message, extensions: { errorClass, ...(legacyCode ? { legacyCode } : {}) } }] },
});
const cents = (amount: string) => Math.round(Number(amount) * 1000);

const globalId = (legacyId: string) => Buffer.from(`transaction_${legacyId}`).toString('base64').replace(/=+$/, '');
const refundView = (tx: Tx) => ({
  id: tx.id,
  orderId: tx.orderId,
  status: tx.status,
  amount: { value: tx.amount, currencyCode: tx.currency },
});
const ok = (data: unknown): FakeAnswer => ({ status: 200, json: { data } });

/** Braintree's state and answers: single-use and vaulted payment methods, transactions and refunds. */
class BraintreeSimulation {
  readonly transactions = new Map<string, Tx>();
  readonly settlements = new BraintreeSettlementSimulation(this.transactions);
  private readonly singleUse = new Map<string, { cvv: string | null }>();
  private readonly vaulted = new Set<string>();
  private sequence = 0;
  slowMs = 1000;
  /** Sandbox testing: a capture settles at once (Braintree's testing settle), so refunds can follow. */
  settleOnCapture = false;
  /** A status the next request answers with (401, 429, 500), once. */
  fault: 401 | 429 | 500 | null = null;

  private next(prefix: string): string {
    return `${prefix}${(++this.sequence).toString(36).padStart(6, '0')}`;
  }

  view(tx: Tx) {
    return {
      id: tx.id,
      legacyId: tx.legacyId,
      orderId: tx.orderId,
      status: tx.status,
      merchantAccountId: tx.merchantAccountId,
      amount: { value: tx.amount, currencyCode: tx.currency },
      paymentMethodSnapshot: {
        __typename: 'CreditCardTransactionDetails',
        networkTransactionId: tx.networkTransactionId ?? null,
      },
      statusHistory: tx.history,
    };
  }

  /** What is wrong with a transaction input, as Braintree's validation error, or null. */
  private invalid(transaction: Record<string, any>, currency: string | undefined): FakeAnswer | null {
    if (!currency) return gqlError(200, 'VALIDATION', 'Merchant account ID is invalid.', '91513');
    const decimals = currency === 'JPY' ? 0 : currency === 'KWD' ? 3 : 2;
    if (!new RegExp(decimals === 0 ? '^\\d+$' : `^\\d+\\.\\d{${decimals}}$`).test(transaction.amount ?? ''))
      return gqlError(200, 'VALIDATION', 'Amount is an invalid format.', '81503');
    if (!transaction.orderId) return gqlError(200, 'VALIDATION', 'orderId is required by this fake', '0');
    return null;
  }

  /** The sandbox's outcome of an amount and CVV: the status and its history. */
  private decide(tx: Tx, value: number, cvv: string | null, charge: boolean): void {
    const response = {
      legacyCode: '1000',
      message: 'Approved',
      cvvResponse: cvv ? 'MATCHES' : 'NOT_PROVIDED',
      avsPostalCodeResponse: 'NOT_PROVIDED',
      avsStreetAddressResponse: 'NOT_PROVIDED',
      authorizationId: `A${tx.legacyId}`,
    };
    if (value >= 2000 && value < 3000) {
      tx.status = 'PROCESSOR_DECLINED';
      tx.history = [
        {
          status: tx.status,
          processorResponse: {
            ...response,
            legacyCode: String(Math.floor(value)),
            message: Math.floor(value) === 2001 ? 'Insufficient Funds' : 'Do Not Honor',
            authorizationId: null,
          },
        },
      ];
    } else if (value >= 3000 && value < 3001) {
      tx.status = 'FAILED';
      tx.history = [
        {
          status: tx.status,
          processorResponse: { legacyCode: '3000', message: 'Processor Network Unavailable - Try Again' },
        },
      ];
    } else if (cvv === '200') {
      tx.status = 'GATEWAY_REJECTED';
      tx.history = [
        {
          status: tx.status,
          gatewayRejectionReason: 'CVV',
          processorResponse: { ...response, cvvResponse: 'DOES_NOT_MATCH' },
        },
      ];
    } else {
      tx.history = [{ status: 'AUTHORIZED', processorResponse: response }];
      if (charge) tx.history.unshift({ status: (tx.status = 'SUBMITTED_FOR_SETTLEMENT') });
    }
  }

  create(input: Record<string, any>, charge: boolean): FakeAnswer {
    const method =
      this.singleUse.get(input.paymentMethodId) ?? (this.vaulted.has(input.paymentMethodId) ? { cvv: null } : null);
    if (!method) return gqlError(200, 'VALIDATION', 'Unknown or expired payment_method_nonce.', '91565');
    const stored = this.storedCredentialProblem(input, !this.singleUse.has(input.paymentMethodId));
    if (stored) return stored;
    this.singleUse.delete(input.paymentMethodId);
    const transaction = input.transaction ?? {};
    const merchantAccountId = transaction.merchantAccountId ?? 'default_usd';
    const invalid = this.invalid(transaction, ACCOUNTS[merchantAccountId]);
    if (invalid) return invalid;
    const value = Number(transaction.amount);
    if (value === 4290) return gqlError(429, 'RESOURCE_LIMIT', 'Too many requests');
    if (value === 5000) return gqlError(500, 'INTERNAL', 'An internal error occurred.');
    const legacyId = this.next('t');
    const tx: Tx = {
      id: globalId(legacyId),
      legacyId,
      orderId: transaction.orderId,
      status: 'AUTHORIZED',
      amount: transaction.amount,
      authorized: transaction.amount,
      currency: ACCOUNTS[merchantAccountId]!,
      merchantAccountId,
      kind: 'sale',
      refunded: 0,
      history: [],
    };
    this.decide(tx, value, method.cvv, charge);
    if (tx.history.some((event) => event.status === 'AUTHORIZED'))
      tx.networkTransactionId = `4${String(parseInt(legacyId.slice(1), 36)).padStart(14, '0')}`;
    this.transactions.set(tx.id, tx);
    const answer = ok({ [charge ? 'chargeCreditCard' : 'authorizeCreditCard']: { transaction: this.view(tx) } });
    if (value === 4090) return { drop: true };
    return value === 4080 ? { ...answer, delayMs: this.slowMs } : answer;
  }

  /**
   * A stored credential's inputs, as Braintree's schema documents them: `paymentInitiator` one of
   * PaymentInitiator's values; `options.externalVault` only for a card not in Braintree's vault
   * (`multiUse`: the payment method is), its `verifyingNetworkTransactionId` not with `WILL_VAULT`.
   */
  private storedCredentialProblem(input: Record<string, any>, multiUse: boolean): FakeAnswer | null {
    const initiator = input.transaction?.paymentInitiator;
    if (
      initiator !== undefined &&
      ![
        'ESTIMATED',
        'INSTALLMENT',
        'INSTALLMENT_FIRST',
        'MOTO',
        'RECURRING',
        'RECURRING_FIRST',
        'UNSCHEDULED',
      ].includes(initiator)
    )
      return gqlError(
        200,
        'VALIDATION',
        `Variable 'input' has an invalid value: paymentInitiator ${String(initiator)}`,
      );
    const vault = input.options?.externalVault;
    if (vault === undefined) return null;
    if (!['VAULTED', 'WILL_VAULT'].includes(vault.status))
      return gqlError(
        200,
        'VALIDATION',
        `Variable 'input' has an invalid value: externalVault.status ${String(vault.status)}`,
      );
    if (multiUse)
      return gqlError(
        200,
        'VALIDATION',
        'External vault options cannot be used with a payment method stored in the Braintree vault.',
      );
    if (vault.status === 'WILL_VAULT' && vault.verifyingNetworkTransactionId !== undefined)
      return gqlError(
        200,
        'VALIDATION',
        'verifyingNetworkTransactionId cannot be passed with externalVault status WILL_VAULT.',
      );
    return null;
  }

  capture(input: Record<string, any>): FakeAnswer {
    const tx = this.transactions.get(input.transactionId);
    if (!tx) return gqlError(200, 'NOT_FOUND', 'An object with this ID was not found.');
    const amount = input.transaction?.amount ?? tx.amount;
    if (tx.status !== 'AUTHORIZED')
      return gqlError(200, 'VALIDATION', 'Cannot submit for settlement unless status is authorized.', '91507');
    if (cents(amount) > cents(tx.authorized))
      return gqlError(200, 'VALIDATION', 'Settlement amount cannot be more than the authorized amount.', '91522');
    tx.status = this.settleOnCapture ? 'SETTLED' : 'SUBMITTED_FOR_SETTLEMENT';
    tx.amount = amount;
    tx.history.unshift({ status: tx.status });
    return ok({ captureTransaction: { transaction: this.view(tx) } });
  }

  reverse(input: Record<string, any>): FakeAnswer {
    const tx = this.transactions.get(input.transactionId);
    if (!tx) return gqlError(200, 'NOT_FOUND', 'An object with this ID was not found.');
    if (tx.status !== 'AUTHORIZED' && tx.status !== 'SUBMITTED_FOR_SETTLEMENT')
      return gqlError(
        200,
        'VALIDATION',
        'Transaction can only be voided if status is authorized, submitted_for_settlement.',
        '91504',
      );
    tx.status = 'VOIDED';
    tx.history.unshift({ status: tx.status });
    return ok({ reverseTransaction: { reversal: { __typename: 'Transaction', id: tx.id, status: tx.status } } });
  }

  refund(input: Record<string, any>): FakeAnswer {
    const tx = this.transactions.get(input.transactionId);
    if (!tx) return gqlError(200, 'NOT_FOUND', 'An object with this ID was not found.');
    if (tx.status !== 'SETTLED' && tx.status !== 'SETTLING')
      return gqlError(200, 'VALIDATION', 'Cannot refund transaction unless it is settled.', '91506');
    const amount = input.refund?.amount ?? tx.amount;
    if (tx.refunded + cents(amount) > cents(tx.amount))
      return gqlError(200, 'VALIDATION', 'Refund amount is too large.', '91521');
    tx.refunded += cents(amount);
    const legacyId = this.next('r');
    const credit: Tx = {
      ...tx,
      id: globalId(legacyId),
      legacyId,
      orderId: input.refund?.orderId ?? '',
      status: 'SUBMITTED_FOR_SETTLEMENT',
      amount,
      kind: 'credit',
      refunded: 0,
      history: [{ status: 'SUBMITTED_FOR_SETTLEMENT' }],
      refundedTransactionId: tx.id,
      disbursement: null,
    };
    this.transactions.set(credit.id, credit);
    return ok({ refundTransaction: { refund: refundView(credit) } });
  }

  search(input: Record<string, any>, kind: 'sale' | 'credit'): FakeAnswer {
    const found = [...this.transactions.values()].filter((tx) => tx.kind === kind && tx.orderId === input.orderId?.is);
    const edges = found.map((tx) => ({ node: kind === 'sale' ? this.view(tx) : refundView(tx) }));
    return ok({ search: { [kind === 'sale' ? 'transactions' : 'refunds']: { edges } } });
  }

  tokenize(card: Record<string, any>): FakeAnswer {
    if (!/^\d{12,19}$/.test(card.number ?? ''))
      return gqlError(200, 'VALIDATION', 'Credit card number is invalid.', '81715');
    if (!/^\d{2}$/.test(card.expirationMonth ?? '') || !/^\d{4}$/.test(card.expirationYear ?? ''))
      return gqlError(200, 'VALIDATION', 'Expiration date is invalid.', '81712');
    const id = this.next('tokencc_');
    this.singleUse.set(id, { cvv: card.cvv ?? null });
    return ok({ tokenizeCreditCard: { paymentMethod: { id } } });
  }

  vault(input: Record<string, any>): FakeAnswer {
    if (!this.singleUse.delete(input.paymentMethodId))
      return gqlError(200, 'VALIDATION', 'Unknown or expired payment_method_nonce.', '91565');
    const id = this.next('vpm_');
    this.vaulted.add(id);
    return ok({ vaultPaymentMethod: { paymentMethod: { id }, verification: null } });
  }

  find(id: string): FakeAnswer {
    const tx = this.transactions.get(id);
    if (!tx) return gqlError(200, 'NOT_FOUND', 'An object with this ID was not found.');
    return ok({
      node:
        tx.kind === 'sale'
          ? { __typename: 'Transaction', ...this.view(tx) }
          : { __typename: 'Refund', ...refundView(tx) },
    });
  }
}

function operation(sim: BraintreeSimulation, name: string, variables: Record<string, any>): FakeAnswer {
  const input = variables.input ?? {};
  switch (name) {
    case 'Ping':
      return ok({ ping: 'pong' });
    case 'TokenizeCreditCard':
      return sim.tokenize(input.creditCard ?? {});
    case 'AuthorizeCreditCard':
      return sim.create(input, false);
    case 'ChargeCreditCard':
      return sim.create(input, true);
    case 'CaptureTransaction':
      return sim.capture(input);
    case 'ReverseTransaction':
      return sim.reverse(input);
    case 'RefundTransaction':
      return sim.refund(input);
    case 'VaultPaymentMethod':
      return sim.vault(input);
    case 'FindPayment':
      return sim.find(variables.id);
    case 'SearchTransactions':
      return sim.search(input, 'sale');
    case 'SearchRefunds':
      return sim.search(input, 'credit');
    default:
      return sim.settlements.search(name, variables) ?? gqlError(200, 'VALIDATION', `Unknown operation ${name}`);
  }
}

function route(sim: BraintreeSimulation, req: FakeRequest): FakeAnswer {
  if (req.method !== 'POST' || req.path !== '/graphql') return { status: 404, json: {} };
  if (sim.fault) {
    const status = sim.fault;
    sim.fault = null;
    return status === 401
      ? gqlError(401, 'AUTHENTICATION', 'Authentication credentials are invalid.')
      : status === 429
        ? gqlError(429, 'RESOURCE_LIMIT', 'Too many requests')
        : gqlError(500, 'INTERNAL', 'An internal error occurred.');
  }
  const expected = `Basic ${Buffer.from(`${BRAINTREE_FAKE_KEYS.public_key}:${BRAINTREE_FAKE_KEYS.private_key}`).toString('base64')}`;
  if (req.headers.authorization !== expected)
    return gqlError(401, 'AUTHENTICATION', 'Authentication credentials are invalid.');
  if (req.headers['braintree-version'] !== '2019-01-01')
    return gqlError(400, 'VALIDATION', 'Braintree-Version header is required.');
  const body = JSON.parse(req.body || '{}') as { query?: string; variables?: Record<string, any> };
  return operation(sim, /^\s*(?:mutation|query)\s+(\w+)/.exec(body.query ?? '')?.[1] ?? '', body.variables ?? {});
}

export async function startBraintreeFake(): Promise<BraintreeFake> {
  const sim = new BraintreeSimulation();
  const server = await startFakeServer((req) => route(sim, req));
  return {
    ...server,
    baseUrl: `${server.url}/graphql`,
    transactions: sim.transactions,
    get slowMs() {
      return sim.slowMs;
    },
    set slowMs(ms: number) {
      sim.slowMs = ms;
    },
    get settleOnCapture() {
      return sim.settleOnCapture;
    },
    set settleOnCapture(on: boolean) {
      sim.settleOnCapture = on;
    },
    failNext: (status) => void (sim.fault = status),
    settleAll: (at) => sim.settlements.settle(at ?? new Date().toISOString()),
    settlements: sim.settlements,
    calls: (name) =>
      server.requests
        .map((r) => JSON.parse(r.body || '{}') as { query?: string; variables?: Record<string, any> })
        .filter((b) => new RegExp(`^\\s*(mutation|query)\\s+${name}\\b`).test(b.query ?? ''))
        .map((b) => b.variables ?? {}),
  };
}
