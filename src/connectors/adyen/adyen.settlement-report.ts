import { isCurrency } from '../../lib/currencies.ts';
import { ConnectorError, type SettlementLine } from '../connector.ts';
import { adyenExponent, fromAdyenValue } from './adyen.amounts.ts';
import { type CsvError, parseCsv } from './adyen.csv.ts';
import { instantOf, minorOf, scaledOf } from './adyen.report-values.ts';

/**
 * Adyen's Settlement details report (docs.adyen.com/reporting/settlement-reconciliation/
 * transaction-level/settlement-details-report) → our settlement lines. Columns are found by their
 * header name (Adyen lets an account add and reorder columns), never by position.
 *
 * Every line of a payment names the payment in `Psp Reference` (the authorisation's) and itself in
 * `Modification Reference` (the capture's, refund's or dispute's own PSP reference). Amounts are
 * decimals in the currency's major unit: `Gross Debit/Credit (GC)` in the payment's currency,
 * `Net Debit/Credit (NC)` and the fees in the settlement currency, with `Exchange Rate` between them.
 * Adyen's own arithmetic: (Gross Credit − Gross Debit) × rate − fees = Net Credit − Net Debit, where
 * fees = Commission + Markup + Scheme Fees + Interchange (Commission for blended pricing, the other
 * three for Interchange++; an empty cell is 0).
 */

/** Adyen's journal type → our line kind; every other type is skipped (`SKIPPED_TYPES` in the docs). */
export const ADYEN_LINE_KINDS: Readonly<Record<string, SettlementLine['kind']>> = Object.freeze({
  Settled: 'capture',
  Refunded: 'refund',
  Chargeback: 'chargeback',
  SecondChargeback: 'chargeback',
  ChargebackReversed: 'chargeback-reversal',
});

/** A credit to the merchant (+1) or a debit (−1), by kind. */
export const DIRECTION: Readonly<Record<SettlementLine['kind'], 1 | -1>> = {
  capture: 1,
  'chargeback-reversal': 1,
  refund: -1,
  chargeback: -1,
};

const REQUIRED = [
  'Psp Reference',
  'Type',
  'Modification Reference',
  'Gross Currency',
  'Gross Debit (GC)',
  'Gross Credit (GC)',
  'Net Currency',
  'Net Debit (NC)',
  'Net Credit (NC)',
  'Creation Date',
  'TimeZone',
] as const;
const FEES = ['Commission (NC)', 'Markup (NC)', 'Scheme Fees (NC)', 'Interchange (NC)'] as const;

export interface ParsedSettlementReport {
  lines: SettlementLine[];
  /** Lines of types we do not record (fees, payouts, corrections...), or of another merchant account. */
  skipped: Array<{ line: number; type: string; reason: 'type' | 'merchant_account' }>;
}

const invalid = (fileName: string, message: string) =>
  new ConnectorError('invalid_request', `Adyen settlement report ${fileName}: ${message}`);

/**
 * The settlement lines of one report file. `merchantAccount`: lines of other merchant accounts (a
 * report generated for several) are skipped. Throws `ConnectorError` (`invalid_request`) when the
 * file is not a settlement details report or a mapped line cannot be read: a line is never guessed.
 */
export function parseSettlementReport(fileName: string, text: string, merchantAccount: string): ParsedSettlementReport {
  let records;
  try {
    records = parseCsv(text);
  } catch (error) {
    throw invalid(fileName, (error as CsvError).message);
  }
  const header = records[0]?.fields.map((name) => name.trim().toLowerCase()) ?? [];
  const indexOf = new Map<string, number>();
  header.forEach((name, i) => {
    if (!indexOf.has(name)) indexOf.set(name, i);
  });
  const missing = REQUIRED.filter((name) => !indexOf.has(name.toLowerCase()));
  if (missing.length > 0)
    throw invalid(fileName, `not a Settlement details report (no column ${missing.map((m) => `"${m}"`).join(', ')})`);
  const lines: SettlementLine[] = [];
  const skipped: ParsedSettlementReport['skipped'] = [];
  const seen = new Map<string, number>();
  for (const record of records.slice(1)) {
    const cell = (name: string): string => {
      const i = indexOf.get(name.toLowerCase());
      return i === undefined ? '' : (record.fields[i] ?? '').trim();
    };
    const type = cell('Type');
    const kind = Object.hasOwn(ADYEN_LINE_KINDS, type) ? ADYEN_LINE_KINDS[type]! : null;
    if (!kind) {
      skipped.push({ line: record.line, type, reason: 'type' });
      continue;
    }
    const account = cell('Merchant Account');
    if (account !== '' && account !== merchantAccount) {
      skipped.push({ line: record.line, type, reason: 'merchant_account' });
      continue;
    }
    const line = lineOf(fileName, record.line, kind, cell);
    // The key names the line by what it is, not where it is: the same report read twice gives the same ids.
    const key = `${fileName}:${type}:${line.providerTransactionId}:${cell('Modification Reference')}`;
    const occurrence = (seen.get(key) ?? 0) + 1;
    seen.set(key, occurrence);
    lines.push({ ...line, reportLineId: occurrence === 1 ? key : `${key}:${occurrence}` });
  }
  return { lines, skipped };
}

function lineOf(
  fileName: string,
  lineNumber: number,
  kind: SettlementLine['kind'],
  cell: (name: string) => string,
): SettlementLine {
  const fail = (message: string) => invalid(fileName, `line ${lineNumber}: ${message}`);
  const amountOf = (name: string): bigint => {
    const value = scaledOf(cell(name));
    if (value === null) throw fail(`"${name}" is not an amount: ${JSON.stringify(cell(name).slice(0, 40))}`);
    return value;
  };
  const grossCurrency = cell('Gross Currency');
  const netCurrency = cell('Net Currency');
  if (!isCurrency(grossCurrency) || !isCurrency(netCurrency))
    throw fail(`unknown currency ${JSON.stringify(grossCurrency)} / ${JSON.stringify(netCurrency)}`);
  const psp = cell('Psp Reference');
  if (psp === '') throw fail('no Psp Reference');
  const gross = amountOf('Gross Credit (GC)') - amountOf('Gross Debit (GC)');
  const net = amountOf('Net Credit (NC)') - amountOf('Net Debit (NC)');
  const [commission, markup, schemeFee, interchange] = FEES.map(amountOf) as [bigint, bigint, bigint, bigint];
  const fees = commission + markup + schemeFee + interchange;
  // Adyen's report units (its exponent for the currency) → our ISO minor units.
  const ours = (scaled: bigint, currency: string) => fromAdyenValue(minorOf(scaled, adyenExponent(currency)), currency);
  const breakdown = (name: string, scaled: bigint) => (cell(name) === '' ? null : ours(scaled, netCurrency));
  const sameCurrency = grossCurrency === netCurrency;
  // Across currencies the line is told in the settlement currency, where Adyen states the fees: its gross there is net + fees.
  const grossScaled = sameCurrency ? gross : net + fees;
  const rate = cell('Exchange Rate');
  const exchangeRate = sameCurrency || rate === '' ? null : Number(rate);
  if (exchangeRate !== null && !(Number.isFinite(exchangeRate) && exchangeRate > 0))
    throw fail(`"Exchange Rate" is not a rate: ${JSON.stringify(rate.slice(0, 40))}`);
  const booked = cell('Booking Date');
  const postedAt =
    booked !== ''
      ? instantOf(booked, cell('Booking Date TimeZone') || cell('TimeZone'))
      : instantOf(cell('Creation Date'), cell('TimeZone'));
  if (!postedAt)
    throw fail(
      `date ${JSON.stringify((booked || cell('Creation Date')).slice(0, 40))} in time zone ${JSON.stringify((cell('Booking Date TimeZone') || cell('TimeZone')).slice(0, 10))} is not understood`,
    );
  return {
    kind,
    reportLineId: '',
    reportId: fileName,
    reportFileIds: [fileName],
    providerTransactionId: psp,
    providerRefundId: kind === 'refund' ? cell('Modification Reference') || null : null,
    merchantReference: cell('Merchant Reference') || null,
    currency: netCurrency,
    amount: ours(grossScaled < 0n ? -grossScaled : grossScaled, sameCurrency ? grossCurrency : netCurrency),
    commission: ours(fees, netCurrency),
    interchange: breakdown('Interchange (NC)', interchange),
    markup: breakdown('Markup (NC)', markup),
    schemeFee: breakdown('Scheme Fees (NC)', schemeFee),
    exchangeRate,
    postedAt,
  };
}
