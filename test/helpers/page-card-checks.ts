import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';

/** A problem of the hosted page's card checks: the input's id (null: no field of the form) and the message's name. */
export interface CardProblem {
  field: 'card-number' | 'expiration-date' | 'security-code' | null;
  problem: string;
}

type Check<T> = { value: T } | { problem: string };

/** What assets/card-checks.js defines (window.svcCardChecks in the browser). */
export interface CardChecks {
  luhnValid(digits: string): boolean;
  checkNumber(raw: string): Check<string>;
  checkExpiry(raw: string, now: Date): Check<string>;
  checkCode(raw: string, required: boolean): Check<string | null>;
  checkCard(
    input: { stored: boolean; number: string; expiry: string; code: string },
    now: Date,
  ): { problems: CardProblem[]; card: Record<string, string | null> | null };
  cardRefusal(body: unknown): CardProblem[] | null;
}

const FILE = path.resolve(import.meta.dirname, '../../src/modules/payment-links/page/assets/card-checks.js');

/** The page's card checks, run from the very file the browser gets, in a context of their own. */
export function cardChecks(): CardChecks {
  const context = vm.createContext({});
  vm.runInContext(fs.readFileSync(FILE, 'utf8'), context, { filename: FILE });
  const checks = (context as { svcCardChecks?: CardChecks }).svcCardChecks;
  if (!checks) throw new Error('card-checks.js defined no svcCardChecks');
  // Values made in the context have its prototypes: copy them out so toEqual compares plain data.
  const plain = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
  return {
    luhnValid: (digits) => checks.luhnValid(digits),
    checkNumber: (raw) => plain(checks.checkNumber(raw)),
    checkExpiry: (raw, now) => plain(checks.checkExpiry(raw, now)),
    checkCode: (raw, required) => plain(checks.checkCode(raw, required)),
    checkCard: (input, now) => plain(checks.checkCard(input, now)),
    cardRefusal: (body) => plain(checks.cardRefusal(body)),
  };
}
