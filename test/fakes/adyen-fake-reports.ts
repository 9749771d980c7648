import { createHmac } from 'node:crypto';
import type { FakeAnswer, FakeRequest } from './fake-server.ts';

/**
 * The Settlement details reports of the local Adyen (docs.adyen.com: "Settlement details report",
 * "Get reports automatically"). Closing a payout batch writes `settlement_detail_report_batch_<N>.csv`
 * with Adyen's standard columns for every capture, refund and dispute booked since the last batch,
 * with Interchange++ fees, and the batch-level Fee and MerchantPayout lines; the file is served at
 * `/reports/download/MerchantAccount/<merchant>/<file>` to a report user only (X-API-Key of a Report
 * service user, or basic authentication), and a REPORT_AVAILABLE notification announcing it can be
 * made, HMAC-signed the way Adyen signs notification items.
 */

export const ADYEN_FAKE_REPORT_KEY = 'AQE_report_service_key';
export const ADYEN_FAKE_REPORT_USER = 'report@Company.SvcTest';
export const ADYEN_FAKE_REPORT_PASSWORD = 'report-password';
export const ADYEN_FAKE_COMPANY = 'SvcTest';

/** One booking that settles: a capture, refund or dispute of a payment. */
export interface AdyenBooking {
  type: 'Settled' | 'Refunded' | 'Chargeback' | 'SecondChargeback' | 'ChargebackReversed';
  paymentPsp: string;
  modificationPsp: string;
  merchantReference: string;
  modificationReference: string;
  /** Adyen's minor units of `currency`. */
  value: number;
  currency: string;
}

export interface AdyenFakeReport {
  batch: number;
  fileName: string;
  csv: string;
  /** Net Credit − Net Debit of its payment lines (not Fee nor MerchantPayout), per currency, in Adyen's minor units. */
  net: Record<string, number>;
  /** The fees of its payment lines, per currency, in Adyen's minor units. */
  fees: Record<string, number>;
}

/** Adyen's decimals per currency where they differ from two (its currency table, as adyen.amounts.ts). */
const DECIMALS: Record<string, number> = { JPY: 0, KRW: 0, VND: 0, CVE: 0, BHD: 3, JOD: 3, KWD: 3, OMR: 3, TND: 3 };
const decimalsOf = (currency: string) => DECIMALS[currency] ?? 2;

const HEADER = [
  'Company Account',
  'Merchant Account',
  'Psp Reference',
  'Merchant Reference',
  'Payment Method',
  'Creation Date',
  'TimeZone',
  'Type',
  'Modification Reference',
  'Gross Currency',
  'Gross Debit (GC)',
  'Gross Credit (GC)',
  'Exchange Rate',
  'Net Currency',
  'Net Debit (NC)',
  'Net Credit (NC)',
  'Commission (NC)',
  'Markup (NC)',
  'Scheme Fees (NC)',
  'Interchange (NC)',
  'Payment Method Variant',
  'Modification Merchant Reference',
  'Batch Number',
  'Reserved4',
  'Reserved5',
  'Reserved6',
  'Reserved7',
  'Reserved8',
  'Reserved9',
  'Reserved10',
];

/** A value in Adyen's minor units as the report writes it ("5.00", "1000", "12.345"); empty for none. */
function decimal(value: number | null, currency: string): string {
  if (value === null) return '';
  const places = decimalsOf(currency);
  const sign = value < 0 ? '-' : '';
  const digits = String(Math.abs(value)).padStart(places + 1, '0');
  return places === 0 ? `${sign}${digits}` : `${sign}${digits.slice(0, -places)}.${digits.slice(-places)}`;
}

const csvField = (text: string) => (/[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text);

/** CET wall time (the fake account's report time zone), as "YYYY-MM-DD HH:MM:SS". */
const cet = (at: Date) => new Date(at.getTime() + 3_600_000).toISOString().slice(0, 19).replace('T', ' ');

/**
 * The fees the fake's pricing keeps, in Adyen's minor units: Interchange++ on a capture (interchange
 * 0.3 %, scheme fees 0.05 %, markup 0.6 % plus 0.10 of the currency's unit), the fixed 0.10 markup on
 * a refund, a blended 15.00 chargeback fee on a chargeback, none on a reversal.
 */
function feesOf(booking: AdyenBooking): {
  commission: number | null;
  markup: number | null;
  scheme: number | null;
  interchange: number | null;
} {
  const unit = 10 ** decimalsOf(booking.currency);
  const fixed = Math.round(unit / 10);
  switch (booking.type) {
    case 'Settled':
      return {
        commission: null,
        markup: Math.round(booking.value * 0.006) + fixed,
        scheme: Math.round(booking.value * 0.0005),
        interchange: Math.round(booking.value * 0.003),
      };
    case 'Refunded':
      return { commission: null, markup: fixed, scheme: null, interchange: null };
    case 'Chargeback':
    case 'SecondChargeback':
      return { commission: 15 * unit, markup: null, scheme: null, interchange: null };
    case 'ChargebackReversed':
      return { commission: null, markup: null, scheme: null, interchange: null };
  }
}

export class AdyenReportBook {
  readonly bookings: AdyenBooking[] = [];
  readonly reports = new Map<string, AdyenFakeReport>();
  private booked = 0;
  private batch = 0;

  constructor(private readonly merchantAccount: string) {}

  /** Closes the payout batch: a report of every booking since the last one. */
  closeBatch(at = new Date()): AdyenFakeReport {
    const batch = ++this.batch;
    const fileName = `settlement_detail_report_batch_${batch}.csv`;
    const rows: string[][] = [HEADER];
    const net: Record<string, number> = {};
    const fees: Record<string, number> = {};
    for (const booking of this.bookings.slice(this.booked)) {
      const fee = feesOf(booking);
      const total = (fee.commission ?? 0) + (fee.markup ?? 0) + (fee.scheme ?? 0) + (fee.interchange ?? 0);
      const credit = booking.type === 'Settled' || booking.type === 'ChargebackReversed';
      const netValue = credit ? booking.value - total : -(booking.value + total);
      net[booking.currency] = (net[booking.currency] ?? 0) + netValue;
      fees[booking.currency] = (fees[booking.currency] ?? 0) + total;
      const c = booking.currency;
      rows.push([
        ADYEN_FAKE_COMPANY,
        this.merchantAccount,
        booking.paymentPsp,
        booking.merchantReference,
        'visa',
        cet(at),
        'CET',
        booking.type,
        booking.modificationPsp,
        c,
        credit ? '' : decimal(booking.value, c),
        credit ? decimal(booking.value, c) : '',
        '1',
        c,
        netValue < 0 ? decimal(-netValue, c) : '',
        netValue >= 0 ? decimal(netValue, c) : '',
        decimal(fee.commission, c),
        decimal(fee.markup, c),
        decimal(fee.scheme, c),
        decimal(fee.interchange, c),
        'visaclassic',
        booking.modificationReference,
        String(batch),
        '',
        '',
        '',
        '',
        '',
        '',
        '',
      ]);
    }
    this.booked = this.bookings.length;
    // The batch's own lines: the month's transaction fees and the payout to the merchant's bank.
    rows.push([
      ADYEN_FAKE_COMPANY,
      this.merchantAccount,
      '',
      '',
      '',
      cet(at),
      'CET',
      'Fee',
      'Transaction Fees',
      'EUR',
      '',
      '',
      '',
      'EUR',
      '1.25',
      '',
      '',
      '',
      '',
      '',
      '',
      '',
      String(batch),
      '',
      '',
      '',
      '',
      '',
      '',
      '',
    ]);
    rows.push([
      ADYEN_FAKE_COMPANY,
      this.merchantAccount,
      '',
      '',
      '',
      cet(at),
      'CET',
      'MerchantPayout',
      `TX${batch}, batch ${batch}`,
      'EUR',
      '',
      '',
      '',
      'EUR',
      '',
      '',
      '',
      '',
      '',
      '',
      '',
      '',
      String(batch),
      '',
      '',
      '',
      '',
      '',
      '',
      '',
    ]);
    const report = {
      batch,
      fileName,
      csv: `${rows.map((row) => row.map(csvField).join(',')).join('\r\n')}\r\n`,
      net,
      fees,
    };
    this.reports.set(fileName, report);
    return report;
  }

  /** `GET /reports/download/MerchantAccount/<merchant>/<file>`, for a report user only. */
  download(req: FakeRequest): FakeAnswer {
    const key = req.headers['x-api-key'];
    const basic = `Basic ${Buffer.from(`${ADYEN_FAKE_REPORT_USER}:${ADYEN_FAKE_REPORT_PASSWORD}`).toString('base64')}`;
    if (key !== ADYEN_FAKE_REPORT_KEY && req.headers.authorization !== basic)
      return { status: 401, json: null, text: 'HTTP Status 401 - Unauthorized' };
    const [account, fileName] = req.path
      .slice('/reports/download/MerchantAccount/'.length)
      .split('/')
      .map(decodeURIComponent);
    if (account !== this.merchantAccount) return { status: 403, json: null, text: 'HTTP Status 403 - Forbidden' };
    const report = this.reports.get(fileName ?? '');
    return report
      ? { status: 200, json: null, text: report.csv, headers: { 'content-type': 'text/csv' } }
      : { status: 404, json: null, text: 'HTTP Status 404 - Not Found' };
  }

  /** The REPORT_AVAILABLE notification of a report (the reporting guide's shape), signed with the webhook's hex HMAC key. */
  reportAvailable(fileName: string, downloadBase: string, hexKey: string): Record<string, unknown> {
    const item = {
      amount: { currency: 'EUR', value: 0 },
      eventCode: 'REPORT_AVAILABLE',
      eventDate: new Date().toISOString(),
      merchantAccountCode: this.merchantAccount,
      merchantReference: '',
      pspReference: fileName,
      reason: `${downloadBase}/reports/download/MerchantAccount/${this.merchantAccount}/${fileName}`,
      success: 'true',
    };
    const signed = [
      item.pspReference,
      '',
      item.merchantAccountCode,
      item.merchantReference,
      item.amount.value,
      item.amount.currency,
      item.eventCode,
      item.success,
    ].join(':');
    const hmacSignature = createHmac('sha256', Buffer.from(hexKey, 'hex')).update(signed, 'utf8').digest('base64');
    return {
      live: 'false',
      notificationItems: [{ NotificationRequestItem: { ...item, additionalData: { hmacSignature } } }],
    };
  }
}
