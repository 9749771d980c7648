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

interface Tx {
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
}

export interface BraintreeFake extends FakeServer {
  baseUrl: string;
  transactions: Map<string, Tx>;
  slowMs: number;
  /** The nightly settlement batch: everything submitted for settlement is settled. */
  settleAll(): void;
  /** The variables of every GraphQL operation named `name` received. */
  calls(name: string): Array<Record<string, any>>;
}

const gqlError = (status: number, errorClass: string, message: string, legacyCode?: string): FakeAnswer => ({ status, json: { data: null, errors: [{ message, extensions: { errorClass, ...(legacyCode ? { legacyCode } : {}) } }] } });
const cents = (amount: string) => Math.round(Number(amount) * 1000);

export async function startBraintreeFake(): Promise<BraintreeFake> {
  const transactions = new Map<string, Tx>();
  const singleUse = new Map<string, { cvv: string | null }>();
  const vaulted = new Set<string>();
  let sequence = 0;
  const state = { slowMs: 1000 };
  const next = (prefix: string) => `${prefix}${(++sequence).toString(36).padStart(6, '0')}`;

  function view(tx: Tx) {
    return { id: tx.id, legacyId: tx.legacyId, orderId: tx.orderId, status: tx.status, merchantAccountId: tx.merchantAccountId, amount: { value: tx.amount, currencyCode: tx.currency }, statusHistory: tx.history };
  }

  function create(input: Record<string, any>, charge: boolean): FakeAnswer {
    const method = singleUse.get(input.paymentMethodId) ?? (vaulted.has(input.paymentMethodId) ? { cvv: null } : null);
    if (!method) return gqlError(200, 'VALIDATION', 'Unknown or expired payment_method_nonce.', '91565');
    singleUse.delete(input.paymentMethodId);
    const { amount, orderId, merchantAccountId = 'default_usd' } = input.transaction ?? {};
    const currency = ACCOUNTS[merchantAccountId];
    if (!currency) return gqlError(200, 'VALIDATION', 'Merchant account ID is invalid.', '91513');
    const decimals = currency === 'JPY' ? 0 : currency === 'KWD' ? 3 : 2;
    if (!new RegExp(decimals === 0 ? '^\\d+$' : `^\\d+\\.\\d{${decimals}}$`).test(amount ?? '')) return gqlError(200, 'VALIDATION', 'Amount is an invalid format.', '81503');
    if (!orderId) return gqlError(200, 'VALIDATION', 'orderId is required by this fake', '0');
    const value = Number(amount);
    if (value === 4290) return gqlError(429, 'RESOURCE_LIMIT', 'Too many requests');
    if (value === 5000) return gqlError(500, 'INTERNAL', 'An internal error occurred.');
    const legacyId = next('t');
    const tx: Tx = { id: Buffer.from(`transaction_${legacyId}`).toString('base64').replace(/=+$/, ''), legacyId, orderId, status: 'AUTHORIZED', amount, authorized: amount, currency, merchantAccountId, kind: 'sale', refunded: 0, history: [] };
    const response = { legacyCode: '1000', message: 'Approved', cvvResponse: method.cvv ? 'MATCHES' : 'NOT_PROVIDED', avsPostalCodeResponse: 'NOT_PROVIDED', avsStreetAddressResponse: 'NOT_PROVIDED', authorizationId: `A${legacyId}` };
    if (value >= 2000 && value < 3000) {
      tx.status = 'PROCESSOR_DECLINED';
      tx.history = [{ status: tx.status, processorResponse: { ...response, legacyCode: String(Math.floor(value)), message: Math.floor(value) === 2001 ? 'Insufficient Funds' : 'Do Not Honor', authorizationId: null } }];
    } else if (value >= 3000 && value < 3001) {
      tx.status = 'FAILED';
      tx.history = [{ status: tx.status, processorResponse: { legacyCode: '3000', message: 'Processor Network Unavailable - Try Again' } }];
    } else if (method.cvv === '200') {
      tx.status = 'GATEWAY_REJECTED';
      tx.history = [{ status: tx.status, gatewayRejectionReason: 'CVV', processorResponse: { ...response, cvvResponse: 'DOES_NOT_MATCH' } }];
    } else {
      tx.history = [{ status: 'AUTHORIZED', processorResponse: response }];
      if (charge) {
        tx.status = 'SUBMITTED_FOR_SETTLEMENT';
        tx.history.unshift({ status: tx.status });
      }
    }
    transactions.set(tx.id, tx);
    const answer: FakeAnswer = { status: 200, json: { data: { [charge ? 'chargeCreditCard' : 'authorizeCreditCard']: { transaction: view(tx) } } } };
    if (value === 4090) return { drop: true };
    return value === 4080 ? { ...answer, delayMs: state.slowMs } : answer;
  }

  function capture(input: Record<string, any>): FakeAnswer {
    const tx = transactions.get(input.transactionId);
    if (!tx) return gqlError(200, 'NOT_FOUND', 'An object with this ID was not found.');
    const amount = input.transaction?.amount ?? tx.amount;
    if (tx.status !== 'AUTHORIZED') return gqlError(200, 'VALIDATION', 'Cannot submit for settlement unless status is authorized.', '91507');
    if (cents(amount) > cents(tx.authorized)) return gqlError(200, 'VALIDATION', 'Settlement amount cannot be more than the authorized amount.', '91522');
    tx.status = 'SUBMITTED_FOR_SETTLEMENT';
    tx.amount = amount;
    tx.history.unshift({ status: tx.status });
    return { status: 200, json: { data: { captureTransaction: { transaction: view(tx) } } } };
  }

  function reverse(input: Record<string, any>): FakeAnswer {
    const tx = transactions.get(input.transactionId);
    if (!tx) return gqlError(200, 'NOT_FOUND', 'An object with this ID was not found.');
    if (tx.status !== 'AUTHORIZED' && tx.status !== 'SUBMITTED_FOR_SETTLEMENT') return gqlError(200, 'VALIDATION', 'Transaction can only be voided if status is authorized, submitted_for_settlement.', '91504');
    tx.status = 'VOIDED';
    tx.history.unshift({ status: tx.status });
    return { status: 200, json: { data: { reverseTransaction: { reversal: { __typename: 'Transaction', id: tx.id, status: tx.status } } } } };
  }

  function refund(input: Record<string, any>): FakeAnswer {
    const tx = transactions.get(input.transactionId);
    if (!tx) return gqlError(200, 'NOT_FOUND', 'An object with this ID was not found.');
    if (tx.status !== 'SETTLED' && tx.status !== 'SETTLING') return gqlError(200, 'VALIDATION', 'Cannot refund transaction unless it is settled.', '91506');
    const amount = input.refund?.amount ?? tx.amount;
    if (tx.refunded + cents(amount) > cents(tx.amount)) return gqlError(200, 'VALIDATION', 'Refund amount is too large.', '91521');
    tx.refunded += cents(amount);
    const legacyId = next('r');
    const credit: Tx = { ...tx, id: Buffer.from(`transaction_${legacyId}`).toString('base64').replace(/=+$/, ''), legacyId, orderId: input.refund?.orderId ?? '', status: 'SUBMITTED_FOR_SETTLEMENT', amount, kind: 'credit', refunded: 0, history: [] };
    transactions.set(credit.id, credit);
    return { status: 200, json: { data: { refundTransaction: { refund: { id: credit.id, orderId: credit.orderId, status: credit.status, amount: { value: amount, currencyCode: tx.currency } } } } } };
  }

  function search(input: Record<string, any>, kind: 'sale' | 'credit'): FakeAnswer {
    const orderId = input.orderId?.is;
    const edges = [...transactions.values()].filter((tx) => tx.kind === kind && tx.orderId === orderId).map((tx) => ({ node: kind === 'sale' ? view(tx) : { id: tx.id, orderId: tx.orderId, status: tx.status, amount: { value: tx.amount, currencyCode: tx.currency } } }));
    return { status: 200, json: { data: { search: { [kind === 'sale' ? 'transactions' : 'refunds']: { edges } } } } };
  }

  function operation(name: string, variables: Record<string, any>): FakeAnswer {
    const input = variables.input ?? {};
    switch (name) {
      case 'Ping': return { status: 200, json: { data: { ping: 'pong' } } };
      case 'TokenizeCreditCard': {
        const card = input.creditCard ?? {};
        if (!/^\d{12,19}$/.test(card.number ?? '')) return gqlError(200, 'VALIDATION', 'Credit card number is invalid.', '81715');
        if (!/^\d{2}$/.test(card.expirationMonth ?? '') || !/^\d{4}$/.test(card.expirationYear ?? '')) return gqlError(200, 'VALIDATION', 'Expiration date is invalid.', '81712');
        const id = next('tokencc_');
        singleUse.set(id, { cvv: card.cvv ?? null });
        return { status: 200, json: { data: { tokenizeCreditCard: { paymentMethod: { id } } } } };
      }
      case 'AuthorizeCreditCard': return create(input, false);
      case 'ChargeCreditCard': return create(input, true);
      case 'CaptureTransaction': return capture(input);
      case 'ReverseTransaction': return reverse(input);
      case 'RefundTransaction': return refund(input);
      case 'VaultPaymentMethod': {
        if (!singleUse.delete(input.paymentMethodId)) return gqlError(200, 'VALIDATION', 'Unknown or expired payment_method_nonce.', '91565');
        const id = next('vpm_');
        vaulted.add(id);
        return { status: 200, json: { data: { vaultPaymentMethod: { paymentMethod: { id }, verification: null } } } };
      }
      case 'FindPayment': {
        const tx = transactions.get(variables.id);
        if (!tx) return gqlError(200, 'NOT_FOUND', 'An object with this ID was not found.');
        return { status: 200, json: { data: { node: tx.kind === 'sale' ? { __typename: 'Transaction', ...view(tx) } : { __typename: 'Refund', id: tx.id, orderId: tx.orderId, status: tx.status, amount: { value: tx.amount, currencyCode: tx.currency } } } } };
      }
      case 'SearchTransactions': return search(input, 'sale');
      case 'SearchRefunds': return search(input, 'credit');
      default: return gqlError(200, 'VALIDATION', `Unknown operation ${name}`);
    }
  }

  function route(req: FakeRequest): FakeAnswer {
    if (req.method !== 'POST' || req.path !== '/graphql') return { status: 404, json: {} };
    const expected = `Basic ${Buffer.from(`${BRAINTREE_FAKE_KEYS.public_key}:${BRAINTREE_FAKE_KEYS.private_key}`).toString('base64')}`;
    if (req.headers.authorization !== expected) return gqlError(401, 'AUTHENTICATION', 'Authentication credentials are invalid.');
    if (req.headers['braintree-version'] !== '2019-01-01') return gqlError(400, 'VALIDATION', 'Braintree-Version header is required.');
    const body = JSON.parse(req.body || '{}') as { query?: string; variables?: Record<string, any> };
    const name = /^\s*(?:mutation|query)\s+(\w+)/.exec(body.query ?? '')?.[1] ?? '';
    return operation(name, body.variables ?? {});
  }

  const server = await startFakeServer(route);
  return {
    ...server,
    baseUrl: `${server.url}/graphql`,
    transactions,
    get slowMs() { return state.slowMs; },
    set slowMs(ms: number) { state.slowMs = ms; },
    settleAll() {
      for (const tx of transactions.values()) if (tx.status === 'SUBMITTED_FOR_SETTLEMENT') tx.status = 'SETTLED';
    },
    calls: (name) => server.requests.map((r) => JSON.parse(r.body || '{}') as { query?: string; variables?: Record<string, any> }).filter((b) => new RegExp(`^\\s*(mutation|query)\\s+${name}\\b`).test(b.query ?? '')).map((b) => b.variables ?? {}),
  };
}
