const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Base62 form of a UUID (its 128 bits as one number), used as a short reference. */
export function uuidToBase62(uuid: string): string {
  let n = BigInt(`0x${uuid.replace(/-/g, '')}`);
  if (n === 0n) return '0';
  let out = '';
  while (n > 0n) {
    out = ALPHABET[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out;
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
