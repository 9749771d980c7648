import type { CardScheme } from './schemes.ts';

/**
 * Issuer identification number (IIN/BIN) ranges per scheme. A range is a prefix (`'4'`) or two
 * prefixes of the same length (`'2221-2720'`). Ranges of one scheme may sit inside a shorter range
 * of another (Elo's `650031-650033` inside Discover's `65`): the longest matching prefix wins, and
 * ranges of the same length never overlap (a unit test checks it).
 *
 * Sources: the networks' registered ranges as summarised in the public "Payment card number" IIN
 * table; the Elo, Hipercard and RuPay sub-ranges (RuPay: subsets of `50`, `60`, `65`, `81`, `82`)
 * as used by common open-source card type detectors. Deliberately not detected: RuPay's JCB co-brands in `353`/`356` (they are JCB
 * numbers), and the domestic or debit networks that share a Visa, Mastercard or Maestro BIN
 * (bancontact, carte-bancaire, eftpos-australia, accel, nyce, pulse, star, cirrus, culiance): a BIN
 * alone cannot tell them apart, so their cards are reported under the international scheme.
 */
interface RangeSpec {
  scheme: CardScheme;
  prefixes: readonly string[];
  /** Co-badged cards: the other networks that accept the card (PaymentMethod `additional_schemes`). */
  additionalSchemes?: readonly CardScheme[];
  /** Set only where every card of the range is issued in one country (ISO 3166-1 alpha-2). */
  country?: string;
}

const SPECS: readonly RangeSpec[] = [
  { scheme: 'visa', prefixes: ['4'] },
  { scheme: 'visa', prefixes: ['4571'], additionalSchemes: ['dankort'], country: 'DK' },
  { scheme: 'mastercard', prefixes: ['51-55', '2221-2720'] },
  { scheme: 'amex', prefixes: ['34', '37'] },
  { scheme: 'discover', prefixes: ['6011', '644-649', '65'] },
  // UnionPay cards in 622126-622925 are also accepted on the Discover network. UnionPay issues
  // them, so it is the scheme; Discover is an additional scheme (as Discover's own tables do).
  { scheme: 'unionpay', prefixes: ['622126-622925'], additionalSchemes: ['discover'] },
  { scheme: 'unionpay', prefixes: ['62', '810-817'] },
  { scheme: 'jcb', prefixes: ['3528-3589'] },
  { scheme: 'diners-club', prefixes: ['300-305', '36', '38', '39'] },
  { scheme: 'maestro', prefixes: ['5018', '5020', '5038', '5893', '6304', '6759', '6761-6763'] },
  {
    scheme: 'elo',
    country: 'BR',
    prefixes: [
      '401178',
      '401179',
      '431274',
      '438935',
      '451416',
      '457393',
      '457631',
      '457632',
      '504175',
      '506699-506778',
      '509000-509999',
      '627780',
      '636297',
      '636368',
      '650031-650033',
      '650035-650051',
      '650405-650439',
      '650485-650538',
      '650541-650598',
      '650700-650718',
      '650720-650727',
      '650901-650978',
      '651652-651679',
      '655000-655019',
      '655021-655058',
    ],
  },
  { scheme: 'hipercard', country: 'BR', prefixes: ['606282', '384100', '384140', '384160'] },
  { scheme: 'mir', prefixes: ['2200-2204'] },
  {
    scheme: 'rupay',
    prefixes: [
      '5085-5089',
      '60698-60699',
      '6070-6078',
      '60790-60798',
      '6080-6085',
      '65215-65219',
      '6522-6529',
      '6530',
      '65310-65314',
      '8172-8201',
    ],
  },
  { scheme: 'dankort', country: 'DK', prefixes: ['5019'] },
  { scheme: 'uatp', prefixes: ['1'] },
];

/** Allowed card number lengths per scheme; `other` takes any ISO/IEC 7812 length from 12 to 19. */
export const NUMBER_LENGTHS: Readonly<Partial<Record<CardScheme, readonly number[]>>> & { other: readonly number[] } = {
  visa: [13, 16, 19],
  mastercard: [16],
  amex: [15],
  discover: [16, 17, 18, 19],
  unionpay: [16, 17, 18, 19],
  jcb: [16, 17, 18, 19],
  'diners-club': [14, 15, 16, 17, 18, 19],
  maestro: [12, 13, 14, 15, 16, 17, 18, 19],
  elo: [16],
  hipercard: [16],
  mir: [16, 17, 18, 19],
  rupay: [16],
  dankort: [16],
  uatp: [15],
  other: [12, 13, 14, 15, 16, 17, 18, 19],
};

export interface IinRange {
  scheme: CardScheme;
  additionalSchemes: readonly CardScheme[];
  country: string | null;
  /** Number of leading digits the range looks at. */
  prefixLength: number;
  /** Inclusive bounds, as numbers of `prefixLength` digits. */
  low: number;
  high: number;
}

function toRange(spec: RangeSpec, prefix: string): IinRange {
  const [low, high = low] = prefix.split('-') as [string, string?];
  if (!/^\d{1,6}$/.test(low) || !/^\d{1,6}$/.test(high) || low.length !== high.length || Number(low) > Number(high)) {
    throw new Error(`Bad IIN range ${prefix} for ${spec.scheme}`);
  }
  return {
    scheme: spec.scheme,
    additionalSchemes: spec.additionalSchemes ?? [],
    country: spec.country ?? null,
    prefixLength: low.length,
    low: Number(low),
    high: Number(high),
  };
}

/** Every range, longest prefix first, so the first match is the most specific one. */
export const IIN_RANGES: readonly IinRange[] = SPECS.flatMap((spec) =>
  spec.prefixes.map((prefix) => toRange(spec, prefix)),
).sort((a, b) => b.prefixLength - a.prefixLength);

/** The most specific range the leading digits fall in, or undefined (`other`). */
export function findIinRange(digits: string): IinRange | undefined {
  for (const range of IIN_RANGES) {
    if (digits.length < range.prefixLength) continue;
    const lead = Number(digits.slice(0, range.prefixLength));
    if (lead >= range.low && lead <= range.high) return range;
  }
  return undefined;
}
