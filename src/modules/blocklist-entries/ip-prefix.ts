import { isIP } from 'node:net';

/**
 * IP addresses and CIDR blocks as 128-bit numbers, so that one prefix table serves both families.
 * An IPv4 address is its IPv4-mapped IPv6 address (`::ffff:a.b.c.d`), and an IPv4 block of prefix
 * p is the mapped block of prefix 96 + p: the same equivalence node:net's BlockList applies (a
 * mapped address matches an IPv4 rule and the other way round). No regular expressions: node:net's
 * `isIP` checks the syntax, then the text is split by its separators.
 */
export interface IpBlock {
  /** The network address (host bits zero). */
  network: bigint;
  /** Prefix length in the 128-bit space (96 + p for IPv4). */
  prefix: number;
}

const MAPPED = 0xffff_0000_0000n;
const V4_SPACE = 0xffff_ffffn;
const ALL = (1n << 128n) - 1n;

/** The mask of a prefix length in the 128-bit space, precomputed. */
export const PREFIX_MASKS: readonly bigint[] = Array.from({ length: 129 }, (_, p) =>
  p === 0 ? 0n : (ALL << BigInt(128 - p)) & ALL,
);

function v4Bits(text: string): bigint {
  let bits = 0n;
  for (const part of text.split('.')) bits = (bits << 8n) | BigInt(Number(part));
  return bits;
}

function groupsOf(side: string): bigint[] {
  if (side === '') return [];
  const groups: bigint[] = [];
  for (const group of side.split(':')) {
    if (group.includes('.')) {
      const v4 = v4Bits(group);
      groups.push(v4 >> 16n, v4 & 0xffffn);
    } else groups.push(BigInt(Number.parseInt(group, 16)));
  }
  return groups;
}

function v6Bits(text: string): bigint {
  const [head = '', tail] = text.split('::');
  const left = groupsOf(head);
  const right = tail === undefined ? [] : groupsOf(tail);
  const groups = [...left, ...Array<bigint>(8 - left.length - right.length).fill(0n), ...right];
  return groups.reduce((bits, group) => (bits << 16n) | group, 0n);
}

/** An address as a 128-bit number (IPv4 mapped), or null when it is not an IP address. Zone ids are refused. */
export function ipBits(text: string): bigint | null {
  const family = isIP(text);
  if (family === 4) return MAPPED | v4Bits(text);
  if (family === 6 && !text.includes('%')) return v6Bits(text);
  return null;
}

/** Whether a 128-bit address is an IPv4-mapped one (shown in dotted form). */
const isMapped = (bits: bigint) => bits >> 32n === 0xffffn;

function v4Text(bits: bigint): string {
  const n = Number(bits & V4_SPACE);
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

/** RFC 5952 text: lower-case hex, leading zeros dropped, the longest run of two or more zero groups as `::`. */
function v6Text(bits: bigint): string {
  const groups = Array.from({ length: 8 }, (_, i) => Number((bits >> BigInt(112 - 16 * i)) & 0xffffn));
  let best = { start: -1, length: 1 };
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > best.length) best = { start: i, length: j - i };
    i = j === i ? i + 1 : j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best.start < 0) return hex.join(':');
  return `${hex.slice(0, best.start).join(':')}::${hex.slice(best.start + best.length).join(':')}`;
}

/** The canonical text of a block: an address alone for a full-length prefix, else `network/prefix` (IPv4 when mapped). */
export function blockText(block: IpBlock): string {
  if (isMapped(block.network) && block.prefix >= 96) {
    const v4 = block.prefix - 96;
    return v4 === 32 ? v4Text(block.network) : `${v4Text(block.network)}/${v4}`;
  }
  return block.prefix === 128 ? v6Text(block.network) : `${v6Text(block.network)}/${block.prefix}`;
}

/** An address as 32 hex digits: fixed width, so text order is numeric order (network-index.ts). */
export const ipHex = (bits: bigint): string => bits.toString(16).padStart(32, '0');

const isDigits = (text: string) => text.length > 0 && [...text].every((c) => c >= '0' && c <= '9');

/**
 * Parses an address or a CIDR block (`203.0.113.7`, `203.0.113.0/24`, `2001:db8::/32`). Host bits
 * set under the prefix are cleared (`10.1.2.3/8` is `10.0.0.0/8`). A problem is a message a person
 * can act on.
 */
export function parseIpBlock(text: string): { ok: true; block: IpBlock } | { ok: false; message: string } {
  const slash = text.indexOf('/');
  const address = slash < 0 ? text : text.slice(0, slash);
  const bits = ipBits(address);
  if (bits === null)
    return {
      ok: false,
      message: 'Must be an IPv4 or IPv6 address, optionally with a CIDR prefix, e.g. 203.0.113.7 or 203.0.113.0/24',
    };
  const v4 = isIP(address) === 4;
  const max = v4 ? 32 : 128;
  let prefix = max;
  if (slash >= 0) {
    const given = text.slice(slash + 1);
    if (!isDigits(given) || given.length > 3 || Number(given) > max)
      return {
        ok: false,
        message: `The CIDR prefix must be a whole number from 0 to ${max} for an IPv${v4 ? 4 : 6} address`,
      };
    prefix = Number(given);
  }
  const full = v4 ? prefix + 96 : prefix;
  return { ok: true, block: { network: bits & PREFIX_MASKS[full]!, prefix: full } };
}
