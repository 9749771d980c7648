import type { Deps, RequestContext } from '../../context.ts';
import type { TransactionActionJson } from '../../db/schema-transactions.ts';
import { withTransaction, type Executor } from '../../db/transaction.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { recordSystemAudit } from '../audit-logs/audit-logs.service.ts';
import { raiseIncident } from '../monitoring/incidents.service.ts';
import { cardMacOf } from '../velocity/velocity.service.ts';
import { claimThrottle } from './card-testing.repo.ts';

/**
 * The card-testing guard (docs/risk.md, "Card-testing guard"; decision 0138). Per source of a card
 * payment (its IP address, buyer, checkout session, embed token) the shared velocity counters
 * (modules/velocity) count its declined attempts and their distinct cards under a key of the
 * guard's own. Before routing, a source throttled (known to this process) or whose distinct declined
 * cards in the window reached the threshold stops the payment: declined with
 * `flow_card_testing_suspected`, no payment service called. After the answer, a decline is counted,
 * and a source that has just reached the threshold is throttled for the cool-down: one row per source
 * (card_testing_throttles) decides which process raises the monitoring incident and its webhook event.
 * Memory only on the payment's path, except the MACs' key (cached by the vault) and the first read
 * of the account's counts per process.
 */
export const CARD_TESTING_SUSPECTED = 'flow_card_testing_suspected';

export const SOURCE_TYPES = ['ip_address', 'buyer', 'checkout_session', 'embed_token'] as const;
export type CardTestingSourceType = (typeof SOURCE_TYPES)[number];
export type CardTestingSources = Record<CardTestingSourceType, string | null>;

/** Length of a source MAC (as velocity's key MACs). */
const SOURCE_MAC_CHARS = 22;

export interface CardTestingStop {
  source: CardTestingSourceType;
  /** Distinct declined cards of the source counted in the window. */
  counted: number;
  /** The throttle's end when this process already knew it; null when this attempt finds the threshold reached. */
  throttledUntil: number | null;
}

export interface CardTestingCheck {
  /** Set when the payment is stopped before routing. */
  stop: CardTestingStop | null;
  /** The decision-trace entry of the stop. */
  action: TransactionActionJson | null;
  /** After the answer: counts a decline, and throttles a source that reached the threshold. */
  settle(answer: { status: string; error_code?: string | null }): Promise<void>;
}

interface Attempt {
  sources: CardTestingSources;
  /** The card's fingerprint; a payment without one (no card) is not checked. */
  cardFingerprint: string | null;
  amount: number;
  currency: string;
}

/** The sources of a payment: the buyer is its stored buyer, else its external identifier. */
export function sourcesOf(
  ctx: RequestContext,
  facts: { ipAddress: string | null; buyerId: string | null; buyerExternalIdentifier: string | null },
  checkoutSessionId: string | null,
): CardTestingSources {
  const embed = ctx.principal?.scopes.includes('embed') ? (ctx.principal.tokenId ?? ctx.principal.tokenHash) : null;
  return {
    ip_address: facts.ipAddress ? facts.ipAddress.trim().toLowerCase() : null,
    buyer: facts.buyerId ?? (facts.buyerExternalIdentifier ? `external:${facts.buyerExternalIdentifier}` : null),
    checkout_session: checkoutSessionId,
    embed_token: embed,
  };
}

export async function cardTestingCheck(
  ctx: RequestContext,
  db: Executor,
  attempt: Attempt,
): Promise<CardTestingCheck | null> {
  const { deps, merchantAccountId } = ctx;
  const config = deps.config;
  if (!config.cardTestingGuardEnabled || !attempt.cardFingerprint) return null;
  const present = SOURCE_TYPES.filter((type) => attempt.sources[type] !== null);
  if (present.length === 0) return null;
  await deps.velocity.prepare(merchantAccountId, config.cardTestingWindowMinutes, db);
  // A label of the guard's own: no velocity key's MAC (nor a card fingerprint) equals it.
  const labelled = present.map((type) => `card-testing\n${type}\n${attempt.sources[type]}`);
  const macs = (await deps.vault.fingerprints(db, merchantAccountId, labelled)).map((mac) =>
    mac.slice(0, SOURCE_MAC_CHARS),
  );
  const spec = { measure: 'distinct_cards' as const, windowMinutes: config.cardTestingWindowMinutes };
  let stop: CardTestingStop | null = null;
  let stopMac: string | null = null;
  for (const [i, mac] of macs.entries()) {
    const until = deps.cardTesting.throttledUntil(merchantAccountId, mac);
    const counted = deps.velocity.count(merchantAccountId, mac, spec, null);
    if (until !== null || counted >= config.cardTestingDistinctCards) {
      stop = { source: present[i]!, counted, throttledUntil: until };
      stopMac = mac;
      break;
    }
  }
  const card = cardMacOf(attempt.cardFingerprint);
  const counts = config.cardTestingMaxAmount === 0 || attempt.amount <= config.cardTestingMaxAmount;
  return {
    stop,
    action: stop ? traceOf(deps, stop) : null,
    async settle(answer) {
      // Declines of a provider, anti-fraud or 3DS count, and the guard's own stops (a source that keeps
      // trying stays over the threshold); the merchant's rules' and blocklist's early declines do not.
      if (answer.status !== 'authorization_declined') return;
      if (stop === null && (!counts || (answer.error_code ?? '').startsWith('flow_'))) return;
      deps.velocity.record(merchantAccountId, macs, {
        currency: attempt.currency,
        amount: 0,
        card,
        attempts: 0,
        declines: 1,
      });
      if (stop && stop.throttledUntil === null) await throttle(deps, merchantAccountId, stopMac!, stop, ctx.log);
    },
  };
}

function traceOf(deps: Deps, stop: CardTestingStop): TransactionActionJson {
  const config = deps.config;
  return {
    id: 'decline-early',
    flow: 'card-transaction',
    rule_id: 'card-testing',
    created_at: new Date().toISOString(),
    outcome: {
      error_code: CARD_TESTING_SUSPECTED,
      card_testing: {
        source: stop.source,
        distinct_declined_cards: stop.counted,
        threshold: config.cardTestingDistinctCards,
        window_minutes: config.cardTestingWindowMinutes,
      },
    },
  };
}

/**
 * Throttles the source for the cool-down. The process whose claim writes the row raises the incident,
 * its webhook event and the audit entry, and schedules the incident's closing; any other learns the
 * throttle's end. A failure is logged: the payment's answer is given already, and the next attempt of
 * the source, still over the threshold, tries again.
 */
async function throttle(
  deps: Deps,
  merchantAccountId: string,
  sourceMac: string,
  stop: CardTestingStop,
  log: { warn(obj: object, msg?: string): void },
): Promise<void> {
  const config = deps.config;
  const now = new Date();
  const until = new Date(now.getTime() + config.cardTestingBlockMinutes * 60_000);
  try {
    const claimed = await withTransaction(deps.db, async (tx) => {
      const incidentId = uuidv7(now.getTime());
      const result = await claimThrottle(tx, {
        merchant_account_id: merchantAccountId,
        source_mac: sourceMac,
        source_type: stop.source,
        opened_at: now,
        throttled_until: until,
        incident_id: incidentId,
      });
      if (!result.claimed) return result.row.throttled_until;
      const spec = {
        model: 'card_testing' as const,
        params: {
          source_type: stop.source,
          distinct_declined_cards: stop.counted,
          threshold: config.cardTestingDistinctCards,
          window_minutes: config.cardTestingWindowMinutes,
          max_amount: config.cardTestingMaxAmount === 0 ? null : config.cardTestingMaxAmount,
          throttled_until: until.toISOString(),
        },
      };
      const name = `Card testing suspected: one ${stop.source.replace('_', ' ')} throttled`;
      await raiseIncident(tx, deps, { merchantAccountId, id: incidentId, displayName: name, spec });
      await recordSystemAudit(
        tx,
        merchantAccountId,
        {
          name: `System (card-testing guard: ${stop.source} throttled)`,
          jobName: 'card-testing-guard',
          jobId: incidentId,
        },
        'created',
        { type: 'monitoring.incident', id: incidentId, name },
      );
      await deps.queue.enqueue(
        tx,
        'close-card-testing-incident',
        { merchant_account_id: merchantAccountId, incident_id: incidentId },
        { runAt: until, jobKey: `close-card-testing-incident:${incidentId}` },
      );
      return until;
    });
    deps.cardTesting.remember(merchantAccountId, sourceMac, new Date(claimed).getTime());
  } catch (error) {
    log.warn({ err: error }, 'the card-testing throttle could not be recorded; the next attempt tries again');
  }
}
