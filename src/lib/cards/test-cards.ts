import type { CardScheme } from './schemes.ts';

export interface TestCard {
  number: string;
  scheme: CardScheme;
  /** Set for co-badged numbers. */
  additionalSchemes?: readonly CardScheme[];
  /** What the number is for (docs/sandbox.md, "Test cards", lists the same table). */
  purpose: string;
}

/**
 * Sandbox card numbers used across the project: Luhn-valid, one or more per detectable scheme.
 * They are the networks' and processors' published test numbers where one exists, otherwise a
 * number built in the scheme's range with a valid check digit. The mock connector will attach
 * outcomes to them; until then each is simply a valid number of its scheme.
 */
export const TEST_CARDS: readonly TestCard[] = [
  { number: '4111111111111111', scheme: 'visa', purpose: 'Visa, 16 digits: the default test card' },
  { number: '4242424242424242', scheme: 'visa', purpose: 'Visa, 16 digits: a second card (another fingerprint)' },
  { number: '4222222222222', scheme: 'visa', purpose: 'Visa, 13 digits (shortest Visa length)' },
  { number: '5555555555554444', scheme: 'mastercard', purpose: 'Mastercard, 51-55 range' },
  { number: '2223003122003222', scheme: 'mastercard', purpose: 'Mastercard, 2-series range (2221-2720)' },
  { number: '378282246310005', scheme: 'amex', purpose: 'American Express, 15 digits, 4-digit security code' },
  { number: '371449635398431', scheme: 'amex', purpose: 'American Express, 37 prefix' },
  { number: '6011111111111117', scheme: 'discover', purpose: 'Discover, 6011 prefix' },
  { number: '6445644564456445', scheme: 'discover', purpose: 'Discover, 644-649 range' },
  { number: '3530111333300000', scheme: 'jcb', purpose: 'JCB, 16 digits' },
  { number: '3566002020360505', scheme: 'jcb', purpose: 'JCB, second card' },
  { number: '36227206271667', scheme: 'diners-club', purpose: 'Diners Club, 14 digits' },
  { number: '3056930009020004', scheme: 'diners-club', purpose: 'Diners Club, 16 digits, 300-305 range' },
  { number: '6200000000000005', scheme: 'unionpay', purpose: 'UnionPay, 16 digits' },
  { number: '6205500000000000004', scheme: 'unionpay', purpose: 'UnionPay, 19 digits' },
  {
    number: '6221260000000000',
    scheme: 'unionpay',
    additionalSchemes: ['discover'],
    purpose: 'UnionPay co-badged with Discover (622126-622925)',
  },
  { number: '6759649826438453', scheme: 'maestro', purpose: 'Maestro, 16 digits' },
  { number: '5066991111111118', scheme: 'elo', purpose: 'Elo (Brazil)' },
  { number: '6062828888666688', scheme: 'hipercard', purpose: 'Hipercard (Brazil)' },
  { number: '2201382000000013', scheme: 'mir', purpose: 'Mir' },
  { number: '6521500000000006', scheme: 'rupay', purpose: 'RuPay, inside the Discover 65 range (longest prefix wins)' },
  { number: '5019717010103742', scheme: 'dankort', purpose: 'Dankort (Denmark)' },
  { number: '135410014004955', scheme: 'uatp', purpose: 'UATP, 15 digits' },
];
