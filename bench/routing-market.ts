/**
 * The simulated card market of `npm run bench:routing` (bench/routing.ts): three providers whose
 * approval rates differ by scheme and country, with different fees, and an outage of one of them.
 *
 * Each provider is a sandbox card processor (`sim<name>-card`): the `mock-card` connector itself,
 * registered under the provider's id, whose answer to each authorization the market decides. The
 * market tells it through the mock processor's own simulation field (`simulate_outcome`:
 * `decline` is do_not_honor, `error` is service_error) or, for a card-caused decline, through the
 * amount 2051 (insufficient_funds at every provider). So the engine sees the answers of a real
 * sandbox connector, and the outcome of a transaction depends on the service routing chose. It
 * lives in bench/ only, and its connectors are registered as sandbox simulators (withheld in
 * production).
 */
import type { AuthorizeRequest, PaymentConnector } from '../src/connectors/connector.ts';
import { MOCK_CARD_DEFINITION, MockCardConnector } from '../src/connectors/mock/mock-card.connector.ts';
import { ConnectorRegistry } from '../src/connectors/registry.ts';
import { seededRandom } from '../src/modules/routing-stats/prng.ts';

export const PROVIDERS = ['alpha', 'beta', 'gamma'] as const;
export type Provider = (typeof PROVIDERS)[number];
export const SCHEMES = ['visa', 'mastercard', 'amex'] as const;
export type Scheme = (typeof SCHEMES)[number];
export const COUNTRIES = ['US', 'GB', 'DE'] as const;
export type Country = (typeof COUNTRIES)[number];

export const CARD_OF: Record<Scheme, { number: string; security_code: string }> = {
  visa: { number: '4111111111111111', security_code: '123' },
  mastercard: { number: '5555555555554444', security_code: '123' },
  amex: { number: '378282246310005', security_code: '1234' },
};

/** The true approval rate of a transaction the card does not decline, by provider, scheme, country. */
export const TRUE_RATES: Record<Provider, Record<Scheme, Record<Country, number>>> = {
  alpha: {
    visa: { US: 0.95, GB: 0.88, DE: 0.86 },
    mastercard: { US: 0.94, GB: 0.87, DE: 0.85 },
    amex: { US: 0.93, GB: 0.86, DE: 0.84 },
  },
  beta: {
    visa: { US: 0.89, GB: 0.93, DE: 0.95 },
    mastercard: { US: 0.88, GB: 0.92, DE: 0.94 },
    amex: { US: 0.8, GB: 0.82, DE: 0.83 },
  },
  gamma: {
    visa: { US: 0.945, GB: 0.925, DE: 0.9 },
    mastercard: { US: 0.9, GB: 0.918, DE: 0.935 },
    amex: { US: 0.85, GB: 0.84, DE: 0.85 },
  },
};

/** Fees in USD: percent and fixed fee (cents), the amex rate apart. The same numbers go into each service's fee schedule. */
export const FEES: Record<Provider, { percent: string; amexPercent: string; fixed: number }> = {
  alpha: { percent: '2.9', amexPercent: '3.5', fixed: 30 },
  beta: { percent: '2.5', amexPercent: '3.2', fixed: 25 },
  gamma: { percent: '1.9', amexPercent: '2.9', fixed: 15 },
};

/** The fee of an authorization of `amount` cents at `provider`, in cents (exact, fractional). */
export function feeOf(provider: Provider, scheme: Scheme, amount: number): number {
  const f = FEES[provider];
  return (amount * Number(scheme === 'amex' ? f.amexPercent : f.percent)) / 100 + f.fixed;
}

/** The outage: `OUTAGE.provider` answers service_error to every authorization in [from, to) (simulated seconds). */
export const OUTAGE = { provider: 'alpha' as Provider, from: 200, to: 350 };

export interface MarketTransaction {
  index: number;
  /** Simulated seconds since the run's start. */
  at: number;
  scheme: Scheme;
  country: Country;
  amount: number;
  /** Declined by the card (insufficient funds) at every provider. */
  cardDeclines: boolean;
  /** The draw each provider compares with its true rate (the same transaction gets the same draws in every run). */
  draws: Record<Provider, number>;
}

/** The market's transactions: `count` arrivals, `perSecond` a second, from the seed. */
export function marketTransactions(seed: string, count: number, perSecond: number, startAt = 0): MarketTransaction[] {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[], weights: readonly number[]): T => {
    let u = random() * weights.reduce((a, b) => a + b, 0);
    for (let i = 0; i < items.length; i++) {
      u -= weights[i]!;
      if (u < 0) return items[i]!;
    }
    return items[items.length - 1]!;
  };
  const out: MarketTransaction[] = [];
  for (let index = 0; index < count; index++) {
    const scheme = pick(SCHEMES, [0.55, 0.33, 0.12]);
    const country = pick(COUNTRIES, [0.45, 0.25, 0.3]);
    const cardDeclines = random() < 0.04;
    // 10.00 to 199.99 USD, never one of the mock processor's outcome amounts (20xx cents).
    let amount = 1000 + Math.floor(random() * 19_000);
    if (amount >= 2000 && amount < 2100) amount += 100;
    const draws = { alpha: random(), beta: random(), gamma: random() };
    out.push({
      index,
      at: startAt + index / perSecond,
      scheme,
      country,
      amount: cardDeclines ? 2051 : amount,
      cardDeclines,
      draws,
    });
  }
  return out;
}

export const inOutage = (provider: Provider, at: number) =>
  provider === OUTAGE.provider && at >= OUTAGE.from && at < OUTAGE.to;

/** What the provider answers to the transaction (before the connector's own scenarios). */
export function answerOf(provider: Provider, txn: MarketTransaction): 'approve' | 'decline' | 'error' | 'card' {
  if (inOutage(provider, txn.at)) return 'error';
  if (txn.cardDeclines) return 'card';
  return txn.draws[provider] < TRUE_RATES[provider][txn.scheme][txn.country] ? 'approve' : 'decline';
}

/** The market's state the connectors read: the transaction being sent, and the providers it reached. */
export class Market {
  current: MarketTransaction | null = null;
  calls: Provider[] = [];
}

export const definitionId = (provider: Provider) => `sim${provider}-card`;

/** The `mock-card` connector under the provider's id, its answers decided by the market. */
function providerConnector(provider: Provider, market: Market): PaymentConnector {
  const mock = new MockCardConnector();
  const connector = Object.create(mock) as PaymentConnector & { definition: PaymentConnector['definition'] };
  Object.defineProperty(connector, 'definition', {
    value: { ...MOCK_CARD_DEFINITION, id: definitionId(provider), display_name: `Simulated ${provider}` },
  });
  connector.authorize = (request: AuthorizeRequest) => {
    const txn = market.current;
    if (!txn) return mock.authorize.call(connector, request);
    market.calls.push(provider);
    const answer = answerOf(provider, txn);
    const simulate = answer === 'decline' ? 'decline' : answer === 'error' ? 'error' : 'none';
    return mock.authorize.call(connector, {
      ...request,
      credentials: { ...request.credentials, simulate_outcome: simulate },
    });
  };
  return connector;
}

export function marketRegistry(market: Market): ConnectorRegistry {
  const registry = new ConnectorRegistry();
  for (const provider of PROVIDERS) registry.register(providerConnector(provider, market), { sandbox: true });
  return registry;
}
