import type { Executor } from '../../db/transaction.ts';
import type { Vault } from '../../vault/vault.ts';
import type { VelocityLookup, VelocityNeeds } from '../flows/velocity-condition.ts';
import type { VelocityCounters } from './velocity-counters.ts';
import type { CurrentAttempt, VelocityKey } from './velocity-window.ts';

/**
 * A transaction's velocity check (docs/risk.md, "Velocity limits"): the keyed MACs of its keys,
 * the counts its rules compare, and its recording. Only for merchant accounts whose rules use
 * velocity (`needs`), and only the keys they use.
 */
export type VelocityKeyValues = Record<VelocityKey, string | null>;

export interface VelocityCheck {
  /** What the rules' velocity conditions read; the transaction itself counts until it is recorded. */
  lookup: VelocityLookup;
  /** Counts the transaction as an attempt (amount, card) under each of its keys, once. */
  recordAttempt(): void;
  /** Counts its decline (a provider's, anti-fraud's or 3DS's answer). */
  recordDecline(): void;
}

/** Length of a stored key MAC (base64url of HMAC-SHA256): 132 bits. */
const KEY_MAC_CHARS = 22;
/** Length of a card's MAC in a distinct-cards set: 96 bits, no collision among 64 cards in practice. */
const CARD_MAC_CHARS = 16;

/** Case and spaces do not make another e-mail or IP address. */
const normalized = (key: VelocityKey, value: string) =>
  key === 'email_address' || key === 'ip_address' ? value.trim().toLowerCase() : value;

/** The short MAC of a card for the distinct-cards sets: its fingerprint is already a keyed MAC. */
export const cardMacOf = (fingerprint: string | null): string | null =>
  fingerprint ? fingerprint.slice(0, CARD_MAC_CHARS) : null;

export async function velocityCheck(
  deps: { vault: Vault; velocity: VelocityCounters },
  db: Executor,
  merchantAccountId: string,
  needs: VelocityNeeds,
  values: VelocityKeyValues,
  current: CurrentAttempt,
): Promise<VelocityCheck> {
  await deps.velocity.prepare(merchantAccountId, needs.horizonMinutes, db);
  const keys: VelocityKey[] = [];
  const labelled: string[] = [];
  for (const key of needs.keys) {
    const value = values[key];
    if (!value) continue;
    keys.push(key);
    // Under the account's fingerprint key, labelled so no key's MAC equals a card fingerprint or another key's.
    labelled.push(`velocity\n${key}\n${normalized(key, value)}`);
  }
  const macs =
    labelled.length === 0
      ? []
      : (await deps.vault.fingerprints(db, merchantAccountId, labelled)).map((mac) => mac.slice(0, KEY_MAC_CHARS));
  let recorded = false;
  const counters = deps.velocity;
  return {
    lookup: (v) => {
      const i = keys.indexOf(v.key);
      if (i < 0) return null;
      const spec = { measure: v.measure, windowMinutes: v.window_minutes, currency: v.currency ?? null };
      return counters.count(merchantAccountId, macs[i]!, spec, recorded ? null : current);
    },
    recordAttempt() {
      if (recorded || macs.length === 0) return;
      recorded = true;
      counters.record(merchantAccountId, macs, { ...current, attempts: 1, declines: 0 });
    },
    recordDecline() {
      if (macs.length === 0) return;
      counters.record(merchantAccountId, macs, {
        currency: current.currency,
        amount: 0,
        card: null,
        attempts: 0,
        declines: 1,
      });
    },
  };
}
