import type { RequestContext } from '../../context.ts';
import type { Executor } from '../../db/transaction.ts';
import type { ErrorDetail } from '../../errors/app-error.ts';
import { cardNumberProblem, validateCardNumber } from '../../lib/card-schemes.ts';
import { cardHintOf } from '../payment-methods/payment-methods.service.ts';
import { cardOfTransaction } from '../transactions/transactions.service.ts';
import type { CreateBlocklistEntryBody } from './blocklist-entries.schemas.ts';
import { normalizeBlocklistValue } from './blocklist-values.ts';
import type { NewBlocklistEntry } from './blocklist-entries.repo.ts';

/** A line of a create or an import, checked: the columns to insert, or what is wrong with it. */
export type CheckedLine =
  | { ok: true; columns: Omit<NewBlocklistEntry, 'merchant_account_id' | 'id'> }
  | { ok: false; problem: ErrorDetail };

const SOURCES = ['value', 'card_number', 'payment_method_id', 'transaction_id'] as const;

const problem = (pointer: string, message: string, type = 'value_error'): CheckedLine => ({
  ok: false,
  problem: { location: 'body', pointer, message, type },
});

/** First 6 and last 4 digits, the usual test-card notation (`411111******1111`). */
const masked = (bin: string | null, last4: string | null) =>
  bin && last4 && bin.length >= 6 ? `${bin.slice(0, 6)}******${last4}` : null;

/** The card named by number, stored payment method or transaction: its keyed fingerprint, never its number. */
async function cardOf(
  db: Executor,
  ctx: RequestContext,
  line: CreateBlocklistEntryBody,
  at: string,
): Promise<{ fingerprint: string; masked: string | null } | CheckedLine> {
  if (line.card_number !== undefined) {
    const number = line.card_number.trim();
    const check = validateCardNumber(number);
    // The message describes the problem, never the number.
    if (!check.ok) return problem(`${at}/card_number`, cardNumberProblem(check), `card_number_${check.reason}`);
    const fingerprint = await ctx.deps.vault.fingerprint(db, ctx.merchantAccountId, number);
    return { fingerprint, masked: masked(number.slice(0, 6), number.slice(-4)) };
  }
  const [field, found] =
    line.payment_method_id !== undefined
      ? (['payment_method_id', await cardHintOf(db, ctx.merchantAccountId, line.payment_method_id)] as const)
      : (['transaction_id', await cardOfTransaction(db, ctx.merchantAccountId, line.transaction_id!)] as const);
  const name = field === 'payment_method_id' ? 'payment method' : 'transaction';
  if (!found) return problem(`${at}/${field}`, `The ${name} ${line[field]} could not be found`, 'not_found');
  if (!found.fingerprint)
    return problem(`${at}/${field}`, `The ${name} has no card fingerprint (it was not paid with a card)`, 'no_card');
  return { fingerprint: found.fingerprint, masked: masked(found.bin, found.last4) };
}

/** Checks one line (`at`: its JSON pointer, `''` for a create's body) and resolves its value. */
export async function checkLine(
  db: Executor,
  ctx: RequestContext,
  line: CreateBlocklistEntryBody,
  at: string,
  now: Date,
): Promise<CheckedLine> {
  const given = SOURCES.filter((source) => line[source] !== undefined);
  if (given.length !== 1)
    return problem(
      at || '/',
      'Send exactly one of value, card_number, payment_method_id or transaction_id',
      given.length === 0 ? 'missing' : 'value_error',
    );
  const source = given[0]!;
  if (source !== 'value' && line.value_type !== 'card_fingerprint')
    return problem(`${at}/${source}`, `${source} names a card: it needs value_type card_fingerprint`);
  const expiresAt = line.expires_at ? new Date(line.expires_at) : null;
  if (expiresAt && expiresAt.getTime() <= now.getTime())
    return problem(
      `${at}/expires_at`,
      'expires_at must be in the future (leave it out for an entry that never expires)',
    );
  const common = { value_type: line.value_type, description: line.description ?? null, expires_at: expiresAt };
  if (source === 'value') {
    const normalized = normalizeBlocklistValue(line.value_type, line.value!);
    if (!normalized.ok) return problem(`${at}/value`, normalized.message);
    return { ok: true, columns: { ...common, value: normalized.value, card_number_masked: null } };
  }
  const card = await cardOf(db, ctx, line, at);
  if ('ok' in card) return card;
  return { ok: true, columns: { ...common, value: card.fingerprint, card_number_masked: card.masked } };
}
