import { BlockList, isIP } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BlocklistMatcher, type BlocklistFacts, type LoadedEntry } from './blocklist-matcher.ts';
import { normalizeBlocklistValue } from './blocklist-values.ts';
import { blockText, ipBits, parseIpBlock } from './ip-prefix.ts';

const NOW = Date.parse('2026-12-06T12:00:00Z');
const NO_FACTS: BlocklistFacts = {
  cardFingerprint: null,
  cardDigits: null,
  emailAddress: null,
  ipAddress: null,
  countries: [],
  buyerExternalIdentifier: null,
};

let counter = 0;
const entry = (value_type: LoadedEntry['value_type'], value: string, expires_at: Date | null = null): LoadedEntry => ({
  id: `e${++counter}`,
  value_type,
  value,
  expires_at,
});

const v4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((parts) => parts.join('.'));
/** IPv6 text from 8 groups, sometimes with small groups (so `::` runs appear), sometimes IPv4-mapped. */
const v6 = fc.oneof(
  fc
    .array(fc.oneof(fc.constant(0), fc.nat(3), fc.nat(0xffff)), { minLength: 8, maxLength: 8 })
    .map((g) => g.map((x) => x.toString(16)).join(':')),
  v4.map((a) => `::ffff:${a}`),
);
/** Addresses near each other, so blocks and addresses overlap often. */
const v4Near = fc.tuple(fc.constantFrom(10, 192), fc.nat(3), fc.nat(3), fc.nat(255)).map((p) => p.join('.'));
const v6Near = fc
  .tuple(fc.nat(3), fc.nat(3), fc.nat(0xffff))
  .map(([a, b, c]) => `2001:db8:${a}:${b}::${c.toString(16)}`);

const cidr = fc.oneof(
  fc
    .tuple(v4Near, fc.integer({ min: 0, max: 32 }))
    .map(([a, p]) => ({ address: a, prefix: p, family: 'ipv4' as const })),
  fc
    .tuple(v6Near, fc.integer({ min: 0, max: 128 }))
    .map(([a, p]) => ({ address: a, prefix: p, family: 'ipv6' as const })),
);

describe('IP addresses and CIDR blocks', () => {
  it('canonical text parses back to the same block, and node:net agrees it is an address', () => {
    fc.assert(
      fc.property(fc.oneof(v4, v6), fc.integer({ min: 0, max: 128 }), (address, p) => {
        const prefix = isIP(address) === 4 ? p % 33 : p;
        const parsed = parseIpBlock(`${address}/${prefix}`);
        expect(parsed.ok).toBe(true);
        if (!parsed.ok) return;
        const text = blockText(parsed.block);
        const again = parseIpBlock(text);
        expect(again).toEqual(parsed);
        expect(isIP(text.split('/')[0]!)).not.toBe(0);
      }),
    );
  });

  it('the matcher finds an address in the entries exactly when node:net BlockList does (IPv4-mapped addresses included)', () => {
    fc.assert(
      fc.property(
        fc.array(cidr, { maxLength: 12 }),
        fc.array(fc.oneof(v4Near, v6Near, v4, v6), { minLength: 1, maxLength: 10 }),
        (blocks, addresses) => {
          const oracle = new BlockList();
          for (const b of blocks) oracle.addSubnet(b.address, b.prefix, b.family);
          const entries = blocks.map((b) => {
            const normalized = normalizeBlocklistValue('ip_address', `${b.address}/${b.prefix}`);
            if (!normalized.ok) throw new Error(normalized.message);
            return entry('ip_address', normalized.value);
          });
          const matcher = new BlocklistMatcher(entries, NOW);
          for (const address of addresses) {
            const family = isIP(address) === 4 ? 'ipv4' : 'ipv6';
            const hit = matcher.matchIp(address);
            expect(hit !== undefined, `${address} in ${JSON.stringify(blocks)}`).toBe(oracle.check(address, family));
            if (hit) {
              // The entry named contains the address, and no entry containing it is more specific.
              const holding = entries.filter((e) => {
                const own = new BlockList();
                const [net, prefix] = e.value.split('/');
                const v = isIP(net!) === 4;
                own.addSubnet(net!, Number(prefix ?? (v ? 32 : 128)), v ? 'ipv4' : 'ipv6');
                return own.check(address, family);
              });
              const specificity = (value: string) => {
                const parsed = parseIpBlock(value);
                return parsed.ok ? parsed.block.prefix : -1;
              };
              const named = entries.find((e) => e.id === hit.id)!;
              expect(holding).toContain(named);
              for (const e of holding) expect(specificity(e.value)).toBeLessThanOrEqual(specificity(named.value));
            }
          }
        },
      ),
    );
  });

  it('refuses what is not an address, with zone ids and bad prefixes', () => {
    for (const bad of [
      '1.2.3',
      '01.2.3.4',
      '1::2::3',
      'fe80::1%eth0',
      '10.0.0.0/33',
      '::/129',
      '10.0.0.0/-1',
      '10.0.0.0/',
      'x',
    ])
      expect(parseIpBlock(bad).ok, bad).toBe(false);
    expect(ipBits('1.2.3.4')).toBe(ipBits('::ffff:1.2.3.4'));
  });
});

describe('BINs and BIN ranges', () => {
  const digits = (n: number) =>
    fc.array(fc.integer({ min: 0, max: 9 }), { minLength: n, maxLength: n }).map((d) => d.join(''));
  /** Short spans around a common stem, so ranges overlap and cards fall inside them often. */
  const range = fc.tuple(fc.constantFrom(6, 7, 8), fc.nat(60), fc.nat(30)).map(([length, start, width]) => {
    const low = `4111${String(start).padStart(length - 4, '0')}`;
    const high = `4111${String(start + width).padStart(length - 4, '0')}`;
    return `${low}-${high}`;
  });
  const cardDigits = fc.oneof(
    fc.nat(99).map((n) => `4111${String(n).padStart(4, '0')}`),
    digits(8),
  );

  it('the bisection finds a containing range exactly when a scan of every range does', () => {
    fc.assert(
      fc.property(
        fc.array(range, { maxLength: 15 }),
        fc.array(cardDigits, { minLength: 1, maxLength: 10 }),
        (ranges, cards) => {
          const entries = ranges.map((r) => entry('bin_range', r));
          const matcher = new BlocklistMatcher(entries, NOW);
          for (const card of cards) {
            const contains = (value: string) => {
              const [low, high] = value.split('-') as [string, string];
              const x = card.slice(0, low.length);
              return x >= low && x <= high;
            };
            const hit = matcher.matchBinRange(card);
            expect(hit !== undefined, `${card} in ${ranges.join(' ')}`).toBe(entries.some((e) => contains(e.value)));
            if (hit) expect(contains(entries.find((e) => e.id === hit.id)!.value)).toBe(true);
          }
        },
      ),
    );
  });

  it('an exact BIN of 6, 7 or 8 digits matches the card that starts with it', () => {
    const matcher = new BlocklistMatcher([entry('bin', '4111112'), entry('bin', '55555555')], NOW);
    expect(matcher.match({ ...NO_FACTS, cardDigits: '41111123' })?.valueType).toBe('bin');
    expect(matcher.match({ ...NO_FACTS, cardDigits: '41111133' })).toBeNull();
    expect(matcher.match({ ...NO_FACTS, cardDigits: '55555555' })?.valueType).toBe('bin');
    // Only the 6-digit BIN of a card is known: a longer entry cannot be decided, so it does not match.
    expect(matcher.match({ ...NO_FACTS, cardDigits: '555555' })).toBeNull();
  });
});

describe('the matcher', () => {
  it('leaves out entries already expired and is valid until the first expiry', () => {
    const matcher = new BlocklistMatcher(
      [
        entry('country', 'DE', new Date(NOW - 1)),
        entry('country', 'FR', new Date(NOW + 5_000)),
        entry('country', 'NL', new Date(NOW + 9_000)),
      ],
      NOW,
    );
    expect(matcher.size).toBe(2);
    expect(matcher.validUntil).toBe(NOW + 5_000);
    expect(matcher.match({ ...NO_FACTS, countries: [{ field: 'country', code: 'DE' }] })).toBeNull();
    expect(matcher.match({ ...NO_FACTS, countries: [{ field: 'billing_address.country', code: 'FR' }] })).toMatchObject(
      {
        valueType: 'country',
        field: 'billing_address.country',
      },
    );
  });

  it('names the first hit in a fixed order: card, BIN, e-mail, IP, country, buyer', () => {
    const card = entry('card_fingerprint', 'f'.repeat(43));
    const email = entry('email_address', 'a@example.com');
    const matcher = new BlocklistMatcher([email, card, entry('ip_address', '10.0.0.0/8')], NOW);
    const facts = {
      ...NO_FACTS,
      cardFingerprint: 'f'.repeat(43),
      emailAddress: 'a@example.com',
      ipAddress: '10.1.1.1',
    };
    expect(matcher.match(facts)).toEqual({ id: card.id, valueType: 'card_fingerprint', field: 'card' });
    expect(matcher.match({ ...facts, cardFingerprint: 'g'.repeat(43) })).toEqual({
      id: email.id,
      valueType: 'email_address',
      field: 'email_address',
    });
    // A value of one type never matches a fact of another.
    expect(
      new BlocklistMatcher([entry('bin', '411111')], NOW).match({ ...NO_FACTS, buyerExternalIdentifier: '411111' }),
    ).toBeNull();
  });
});
