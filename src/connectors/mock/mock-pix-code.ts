import { createHash } from 'node:crypto';

/**
 * A PIX "copia e cola" code for a sandbox payment: an EMV merchant-presented QR payload as the
 * Central Bank of Brazil's BR Code specifies (tags 00 payload format, 26 merchant account with the
 * GUI `br.gov.bcb.pix` and a key, 52 category, 53 currency 986, 54 amount, 58 country, 59 name,
 * 60 city, 62 reference, 63 CRC16-CCITT), so a QR generator or a bank app's parser reads it. The key
 * is derived from the payment id: no bank knows it, nothing can be paid with it.
 */

const field = (tag: string, value: string) => `${tag}${String(value.length).padStart(2, '0')}${value}`;

/** CRC-16/CCITT-FALSE (polynomial 0x1021, initial 0xFFFF), as the BR Code's tag 63 requires. */
export function crc16(text: string): string {
  let crc = 0xffff;
  for (const byte of Buffer.from(text, 'utf8')) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

/** The code of a BRL payment of `amount` centavos whose simulated provider id is `paymentId`. */
export function pixCopyPasteCode(paymentId: string, amount: number): string {
  const hex = createHash('sha256').update(`pix-key:${paymentId}`).digest('hex');
  const key = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
  const reference = hex.slice(32, 57);
  const body = [
    field('00', '01'),
    field('26', field('00', 'br.gov.bcb.pix') + field('01', key)),
    field('52', '0000'),
    field('53', '986'),
    field('54', (amount / 100).toFixed(2)),
    field('58', 'BR'),
    field('59', 'SVC SANDBOX'),
    field('60', 'SAO PAULO'),
    field('62', field('05', reference)),
  ].join('');
  return `${body}6304${crc16(`${body}6304`)}`;
}
