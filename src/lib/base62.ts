const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * Base62 form of a UUID (its 128 bits as one number), used as a short reference. Long division of
 * eight 16-bit limbs by 62 in plain numbers: it runs for every transaction rendered, and BigInt
 * arithmetic cost several times more.
 */
export function uuidToBase62(uuid: string): string {
  const hex = uuid.replace(/-/g, '');
  const limbs: number[] = [];
  for (let i = 0; i < 32; i += 4) limbs.push(parseInt(hex.slice(i, i + 4), 16));
  let out = '';
  let start = 0;
  while (start < 8) {
    let remainder = 0;
    for (let i = start; i < 8; i++) {
      const value = remainder * 65536 + limbs[i]!;
      limbs[i] = Math.floor(value / 62);
      remainder = value % 62;
    }
    out = ALPHABET[remainder] + out;
    while (start < 8 && limbs[start] === 0) start++;
  }
  return out === '' ? '0' : out;
}

export function base62ToUuid(value: string): string {
  if (value === '' || (value.length > 1 && value.startsWith('0'))) throw new Error('not a canonical base62 string');
  let n = 0n;
  for (const ch of value) {
    const digit = ALPHABET.indexOf(ch);
    if (digit < 0) throw new Error('not a base62 string');
    n = n * 62n + BigInt(digit);
  }
  const hex = n.toString(16).padStart(32, '0');
  if (hex.length > 32) throw new Error('value too large for a UUID');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
