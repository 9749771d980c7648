import { describe, expect, it } from 'vitest';
import { parseCsv } from './adyen.csv.ts';
import { instantOf, minorOf, scaledOf } from './adyen.report-values.ts';
import { DIRECTION, parseSettlementReport } from './adyen.settlement-report.ts';

// Adyen's standard column order (docs.adyen.com, Settlement details report, "Standard columns").
const HEADER =
  'Company Account,Merchant Account,Psp Reference,Merchant Reference,Payment Method,Creation Date,TimeZone,Type,Modification Reference,Gross Currency,Gross Debit (GC),Gross Credit (GC),Exchange Rate,Net Currency,Net Debit (NC),Net Credit (NC),Commission (NC),Markup (NC),Scheme Fees (NC),Interchange (NC),Payment Method Variant,Modification Merchant Reference,Batch Number,Reserved4,Reserved5,Reserved6,Reserved7,Reserved8,Reserved9,Reserved10';
const REPORT = [
  HEADER,
  // The two transaction lines of Adyen's documentation, as printed there.
  'TestCompany,TestMerchant,1813702551707653,3vpzf7,visa,2013-06-03 11:26:49,CET,Settled,1713702551795048,GBP,,5.00,1,GBP,,4.88,,0.04,0.01,0.07,visaclassic,,,,,,,,,',
  'TestCompany,TestMerchant,1313642467023511,324959451,visa,2013-03-26 22:37:26,CET,Chargeback,2313642467170922,EUR,349.99,,1,EUR,357.49,,7.5,,,,visaclassic,,,,,,,,,',
  'TestCompany,TestMerchant,1313642467023511,324959451,visa,2013-04-20 10:00:00,CEST,ChargebackReversed,2313642467170999,EUR,,349.99,1,EUR,,349.99,,,,,visaclassic,,,,,,,,,',
  'TestCompany,TestMerchant,8813702551700001,"order, 42 ""gift""",mc,2013-06-04 09:00:00,CEST,Refunded,8813702551700002,EUR,10.00,,1,EUR,10.11,,,0.10,0.01,,mc,"refund ""1""",4,,,,,,,',
  'TestCompany,TestMerchant,8813702551700003,jp-1,jcb,2013-06-04 09:00:00,CEST,Settled,8813702551700004,JPY,,1000,1,JPY,,985,,10,2,3,jcb,,4,,,,,,,',
  'TestCompany,TestMerchant,8813702551700005,kw-1,visa,2013-06-04 09:00:00,CEST,Settled,8813702551700006,KWD,,12.345,1,KWD,,12.300,,0.030,0.005,0.010,visa,,4,,,,,,,',
  'TestCompany,TestMerchant,8813702551700007,us-1,visa,2013-06-04 09:00:00,CEST,Settled,8813702551700008,USD,,10.00,0.9,EUR,,8.82,,0.18,,,visa,,4,,,,,,,',
  'TestCompany,TestMerchant,8813702551700009,cl-1,visa,2013-06-04 09:00:00,CEST,Settled,8813702551700010,CLP,,1500.00,1,CLP,,1485.00,15.00,,,,visa,,4,,,,,,,',
  // Batch-level lines: no payment, not recorded.
  'TestCompany,TestMerchant,,,,2013-06-11 04:55:40,BST,Fee,Transaction Fees June 2013,EUR,,,,EUR,1.25,,,,,,,,4,,,,,,,',
  'TestCompany,TestMerchant,,,,2013-06-11 04:55:40,BST,MerchantPayout,"TX4, batch 4",EUR,,,,EUR,500.00,,,,,,,,4,,,,,,,',
  // A report generated for several merchant accounts: another account's line.
  'TestCompany,OtherMerchant,9913702551700001,x,visa,2013-06-04 09:00:00,CEST,Settled,9913702551700002,EUR,,1.00,1,EUR,,0.90,0.10,,,,visa,,4,,,,,,,',
].join('\r\n');
const FILE = 'settlement_detail_report_batch_4.csv';

describe('happy', () => {
  it('maps the documented lines by header name, with every fee column, in our minor units', () => {
    const { lines } = parseSettlementReport(FILE, REPORT, 'TestMerchant');
    expect(lines).toHaveLength(8);
    expect(lines[0]).toEqual({
      kind: 'capture',
      reportLineId: `${FILE}:Settled:1813702551707653:1713702551795048`,
      reportId: FILE,
      reportFileIds: [FILE],
      providerTransactionId: '1813702551707653',
      providerRefundId: null,
      merchantReference: '3vpzf7',
      currency: 'GBP',
      amount: 500,
      commission: 12,
      interchange: 7,
      markup: 4,
      schemeFee: 1,
      exchangeRate: null,
      postedAt: new Date('2013-06-03T10:26:49Z'),
    });
    expect(lines[1]).toMatchObject({
      kind: 'chargeback',
      providerTransactionId: '1313642467023511',
      currency: 'EUR',
      amount: 34999,
      commission: 750,
      interchange: null,
      markup: null,
      schemeFee: null,
      postedAt: new Date('2013-03-26T21:37:26Z'),
    });
    expect(lines[2]).toMatchObject({
      kind: 'chargeback-reversal',
      providerTransactionId: '1313642467023511',
      amount: 34999,
      commission: 0,
      postedAt: new Date('2013-04-20T08:00:00Z'),
    });
    expect(lines[3]).toMatchObject({
      kind: 'refund',
      providerRefundId: '8813702551700002',
      merchantReference: 'order, 42 "gift"',
      amount: 1000,
      commission: 11,
      markup: 10,
      schemeFee: 1,
      interchange: null,
    });
    expect(lines[4]).toMatchObject({
      currency: 'JPY',
      amount: 1000,
      commission: 15,
      markup: 10,
      schemeFee: 2,
      interchange: 3,
    });
    expect(lines[5]).toMatchObject({
      currency: 'KWD',
      amount: 12345,
      commission: 45,
      markup: 30,
      schemeFee: 5,
      interchange: 10,
    });
    // Paid in USD, settled in EUR: told in EUR (where Adyen states the fees), with Adyen's rate.
    expect(lines[6]).toMatchObject({ currency: 'EUR', amount: 900, commission: 18, exchangeRate: 0.9 });
    // CLP: Adyen writes two decimals, our API has none.
    expect(lines[7]).toMatchObject({ currency: 'CLP', amount: 1500, commission: 15 });
  });

  it("adds up to the report: per currency, the lines' gross less fees equals Net Credit − Net Debit of the mapped lines", () => {
    const { lines } = parseSettlementReport(FILE, REPORT, 'TestMerchant');
    const net: Record<string, number> = {};
    for (const line of lines)
      net[line.currency] = (net[line.currency] ?? 0) + DIRECTION[line.kind] * line.amount - line.commission;
    // Net Credit − Net Debit of the report's Settled/Refunded/Chargeback/ChargebackReversed lines, summed by hand.
    expect(net).toEqual({ GBP: 488, EUR: -35749 + 34999 - 1011 + 882, JPY: 985, KWD: 12300, CLP: 1485 });
  });

  it('skips fees, payouts and other merchant accounts, and names each line the same way on every read', () => {
    const first = parseSettlementReport(FILE, REPORT, 'TestMerchant');
    expect(first.skipped).toEqual([
      { line: 10, type: 'Fee', reason: 'type' },
      { line: 11, type: 'MerchantPayout', reason: 'type' },
      { line: 12, type: 'Settled', reason: 'merchant_account' },
    ]);
    // Another order of lines and columns (Adyen lets an account reorder them): the same ids and values.
    const rows = REPORT.split('\r\n').map((row) => parseCsv(row)[0]!.fields);
    const order = rows[0]!.map((_, i) => i).reverse();
    const quote = (f: string) => (/[",]/.test(f) ? `"${f.replaceAll('"', '""')}"` : f);
    const reordered = [rows[0]!, ...rows.slice(1).reverse()]
      .map((r) => order.map((i) => quote(r[i] ?? '')).join(','))
      .join('\n');
    const second = parseSettlementReport(FILE, reordered, 'TestMerchant');
    const byId = (lines: typeof first.lines) => Object.fromEntries(lines.map((l) => [l.reportLineId, l]));
    expect(byId(second.lines)).toEqual(byId(first.lines));
    expect(new Set(first.lines.map((l) => l.reportLineId)).size).toBe(first.lines.length);
  });

  it('reads quoted fields with commas, doubled quotes and line breaks, CRLF or LF, and a byte order mark', () => {
    expect(parseCsv('\ufeffa,"b,c","d ""e""",\r\n"x\ny",z\n\n')).toEqual([
      { fields: ['a', 'b,c', 'd "e"', ''], line: 1 },
      { fields: ['x\ny', 'z'], line: 2 },
    ]);
    expect(parseCsv('a,b')).toEqual([{ fields: ['a', 'b'], line: 1 }]);
  });

  it("reads amounts exactly and times in the report's zone", () => {
    expect(scaledOf('349.99')).toBe(34_999_000_000n);
    expect(scaledOf('-0.125')).toBe(-12_500_000n);
    expect(minorOf(scaledOf('0.125')!, 2)).toBe(13);
    expect(minorOf(scaledOf('-0.125')!, 2)).toBe(-13);
    expect(instantOf('2024-07-01 12:00:00', 'PDT')).toEqual(new Date('2024-07-01T19:00:00Z'));
    expect(instantOf('2024-01-01 00:30:00', 'GMT+05:30')).toEqual(new Date('2023-12-31T19:00:00Z'));
  });
});

describe('errors', () => {
  it('refuses a file that is not a settlement details report, and a line it cannot read, naming the line', () => {
    expect(() => parseSettlementReport(FILE, 'Date,Amount\n2024-01-01,1', 'TestMerchant')).toThrow(
      /not a Settlement details report.*"Psp Reference"/,
    );
    expect(() =>
      parseSettlementReport(
        FILE,
        `${HEADER}\nC,TestMerchant,1,r,visa,2013-06-03 11:26:49,CET,Settled,2,EUR,,5.0.0,1,EUR,,4,,,,,v,,,,,,,,,`,
        'TestMerchant',
      ),
    ).toThrow(/line 2: "Gross Credit \(GC\)" is not an amount/);
    expect(() =>
      parseSettlementReport(
        FILE,
        `${HEADER}\nC,TestMerchant,1,r,visa,2013-06-03 11:26:49,XYZT,Settled,2,EUR,,5,1,EUR,,4,1,,,,v,,,,,,,,,`,
        'TestMerchant',
      ),
    ).toThrow(/line 2: date .* time zone "XYZT"/);
    expect(() => parseSettlementReport(FILE, `${HEADER}\nC,TestMerchant,"1"x,r`, 'TestMerchant')).toThrow(
      /text after a closing quote/,
    );
    expect(() => parseSettlementReport(FILE, `${HEADER}\nC,"TestMerchant`, 'TestMerchant')).toThrow(/not closed/);
    expect(scaledOf('1e5')).toBeNull();
    expect(scaledOf('0.123456789')).toBeNull();
    expect(instantOf('2024-02-30 00:00:00', 'CET')).toBeNull();
  });
});

describe('security', () => {
  it('reads a large report in linear time (a quoted field of 2 MiB of doubled quotes, 20,000 lines)', () => {
    const started = performance.now();
    expect(parseCsv(`"${'""'.repeat(1024 * 1024)}"`)[0]!.fields[0]!.length).toBe(1024 * 1024);
    const line =
      'TestCompany,TestMerchant,1813702551707653,3vpzf7,visa,2013-06-03 11:26:49,CET,Settled,1713702551795048,GBP,,5.00,1,GBP,,4.88,,0.04,0.01,0.07,visaclassic,,,,,,,,,';
    const big = [HEADER, ...Array.from({ length: 20_000 }, (_, i) => line.replace('1713702551795048', String(i)))].join(
      '\n',
    );
    expect(parseSettlementReport(FILE, big, 'TestMerchant').lines).toHaveLength(20_000);
    expect(performance.now() - started).toBeLessThan(10_000);
  });
});
