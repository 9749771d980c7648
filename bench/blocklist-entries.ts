/**
 * The blocklist of the benchmarks (bench/blocklist.ts, bench/risk-checks.ts): entries of every value
 * type spread evenly, IP blocks of 26 distinct prefix lengths (the IP check's worst factor), and the
 * inputs of payments, one in ten aimed at an entry.
 */
import type { LoadedEntry } from '../src/modules/blocklist-entries/blocklist-matcher.ts';
import {
  BLOCKLIST_VALUE_TYPES,
  normalizeBlocklistValue,
  type BlocklistValueType,
} from '../src/modules/blocklist-entries/blocklist-values.ts';
import type { ResolvedInstrument } from '../src/modules/transactions/create/resolved-instrument.ts';

const COUNTRIES = ['RU', 'KP', 'IR', 'SY', 'CU', 'NG', 'VE', 'BY'];

function sampleValue(type: BlocklistValueType, i: number): string {
  switch (type) {
    case 'card_fingerprint':
      return `fp${String(i).padStart(41, '0')}`;
    case 'bin':
      return String(40_000_000 + i * 37).slice(0, 6 + (i % 3));
    case 'bin_range': {
      const start = 50_000_000 + i * 500;
      return `${start}-${start + 99}`;
    }
    case 'email_address':
      return `user${i}@example.com`;
    case 'ip_address':
      return i % 2
        ? `10.${(i >> 8) & 255}.${i & 255}.0/${24 + (i % 9)}`
        : `2001:db8:${(i % 65536).toString(16)}::/${48 + (i % 17)}`;
    case 'country':
      return COUNTRIES[i % COUNTRIES.length]!;
    case 'buyer_external_identifier':
      return `customer-${i}`;
  }
}

/** `count` entries, the value types in turn. */
export function benchBlocklistEntries(count: number): LoadedEntry[] {
  const entries: LoadedEntry[] = [];
  for (let i = 0; i < count; i++) {
    const type = BLOCKLIST_VALUE_TYPES[i % BLOCKLIST_VALUE_TYPES.length]!;
    const normalized = normalizeBlocklistValue(type, sampleValue(type, i));
    if (normalized.ok) entries.push({ id: `e${i}`, value_type: type, value: normalized.value, expires_at: null });
  }
  return entries;
}

/** A payment's inputs: a card, a guest buyer, an IP, a country; every tenth one is aimed at an entry. */
export function benchBlocklistPayment(i: number) {
  const hit = i % 10 === 0;
  const instrument = {
    cardNumber: hit ? `${String(50_000_000 + (i % 1000) * 500 + 5)}12345678` : `4${String(i).padStart(15, '7')}`,
    fingerprint: `fq${String(i).padStart(41, '0')}`,
    bin: null,
  } as unknown as ResolvedInstrument;
  const buyer = { billing_details: { email_address: `Buyer${i}@Shop.example`, address: { country: 'DE' } } };
  const ip = i % 2 ? `192.0.${i & 255}.${(i >> 8) & 255}` : `2001:db9::${(i & 0xffff).toString(16)}`;
  return { instrument, buyer, ip };
}
