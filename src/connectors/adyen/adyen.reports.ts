import { ConnectorError, type SettlementFetchRequest, type SettlementPage } from '../connector.ts';
import type { ProviderConnectorOptions } from '../provider-http.ts';
import { providerDownload } from '../provider-download.ts';
import { parseSettlementReport } from './adyen.settlement-report.ts';

/**
 * Adyen's report files, downloaded from its Customer Area host: `GET https://ca-test.adyen.com/
 * reports/download/MerchantAccount/<merchant account>/<file name>` (live: `ca-live.adyen.com`),
 * authenticated as a report user: the X-API-Key of a "Report service user" API credential, or the
 * basic authentication of a report user (`report@Company.<company>`). The payments API key is not
 * used: Adyen gives report downloads a credential of their own.
 *
 * A URL from a REPORT_AVAILABLE notification is never fetched as given: only its file name is
 * taken, and only when the URL is exactly the report folder of this payment service's merchant
 * account on the report host of its environment (test or live); the request then goes to that host
 * (or to the sandbox override `CONNECTOR_BASE_URLS=adyen-card-reports=<url>`, refused in production).
 */

export const ADYEN_REPORT_HOSTS = ['ca-test.adyen.com', 'ca-live.adyen.com'] as const;
/** The `CONNECTOR_BASE_URLS` key of the report host (tests and sandboxes), beside `adyen-card` for the Checkout API. */
export const ADYEN_REPORTS_OVERRIDE_KEY = 'adyen-card-reports';
export const adyenReportBaseUrl = (live: boolean) => `https://ca-${live ? 'live' : 'test'}.adyen.com/reports/download`;

const PREFIX = 'settlement_detail_report_batch_';
/** Reports probed past the last one before the daily run stops (a batch closed without a report is stepped over). */
export const ADYEN_BATCH_LOOKAHEAD = 3;

const isDigits = (text: string) => text.length > 0 && [...text].every((c) => c >= '0' && c <= '9');
const isNameChar = (c: string) =>
  (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_' || c === '-';

/**
 * The batch number of a Settlement details report's file name: `settlement_detail_report_batch_<N>.csv`,
 * or with the date Adyen's support can add (`..._<N>_<date>.csv`); null for any other file.
 */
export function settlementBatchOf(fileName: string): number | null {
  if (fileName.length > 200 || !fileName.startsWith(PREFIX) || !fileName.endsWith('.csv')) return null;
  const middle = fileName.slice(PREFIX.length, -4);
  const cut = middle.indexOf('_');
  const batch = cut === -1 ? middle : middle.slice(0, cut);
  const rest = cut === -1 ? '' : middle.slice(cut + 1);
  if (!isDigits(batch) || batch.length > 9 || (cut !== -1 && (rest === '' || ![...rest].every(isNameChar))))
    return null;
  return Number(batch);
}

export const settlementReportName = (batch: number) => `${PREFIX}${batch}.csv`;

/** The later of two report file names by batch number (a resent notification of an old report does not move the cursor back). */
function laterOf(cursor: string | null, fileName: string): string {
  const current = cursor === null ? null : settlementBatchOf(cursor);
  return current !== null && current > (settlementBatchOf(fileName) ?? 0) ? cursor! : fileName;
}

export class AdyenReports {
  constructor(private readonly options: ProviderConnectorOptions) {}

  /** The report folder URL of these credentials' merchant account (the override's in tests). */
  folderUrl(credentials: Record<string, string>): string {
    const base =
      this.options.baseUrls?.[ADYEN_REPORTS_OVERRIDE_KEY] ??
      adyenReportBaseUrl(Boolean(credentials.live_url_prefix?.trim()));
    return `${base.endsWith('/') ? base.slice(0, -1) : base}/MerchantAccount/${encodeURIComponent(credentials.merchant_account ?? '')}/`;
  }

  /** The file name a notification's report names (its download URL or the name itself); refuses anything else. */
  fileNameOf(credentials: Record<string, string>, report: string): string {
    const folder = this.folderUrl(credentials);
    const name = report.includes('/') ? (report.startsWith(folder) ? report.slice(folder.length) : null) : report;
    if (name === null)
      throw new ConnectorError(
        'invalid_request',
        `Adyen report ${JSON.stringify(report.slice(0, 200))} is not in this merchant account's report folder ${folder}`,
      );
    if (settlementBatchOf(name) === null)
      throw new ConnectorError(
        'invalid_request',
        `Adyen report ${JSON.stringify(name.slice(0, 200))} is not a Settlement details report (settlement_detail_report_batch_<N>.csv)`,
      );
    return name;
  }

  /** The report's text, or null when Adyen has no such report (404, or 403: not generated yet). */
  async download(credentials: Record<string, string>, fileName: string): Promise<string | null> {
    const folder = new URL(this.folderUrl(credentials));
    const overridden = this.options.baseUrls?.[ADYEN_REPORTS_OVERRIDE_KEY] !== undefined;
    const endpoint = {
      baseUrl: folder.origin,
      allowedHosts: ADYEN_REPORT_HOSTS,
      overridden,
      ...(this.options.timeoutMs !== undefined ? { timeoutMs: this.options.timeoutMs } : {}),
    };
    const file = await providerDownload(
      endpoint,
      'Adyen',
      `${folder.pathname}${encodeURIComponent(fileName)}`,
      authorizationOf(credentials),
    );
    if (file.status === 200) return file.body.toString('utf8');
    if (file.status === 404 || file.status === 403) return null;
    if (file.status === 401)
      throw new ConnectorError(
        'invalid_request',
        'Adyen refused the report credentials (401): set report_api_key to the API key of a Report service user (or report_username and report_password)',
      );
    throw new ConnectorError('unavailable', `Adyen answered ${file.status} to the report download`);
  }

  /**
   * One page of settlement lines. With `request.report` (a REPORT_AVAILABLE notification): that
   * report, all its lines, done. Without (the daily run): Adyen has no listing of reports in its
   * classic reporting, but names a merchant account's Settlement details reports by consecutive
   * batch numbers; so the next batch after the cursor's (or `settlement_first_batch`, else 1) is
   * fetched, one report per page, until none is there (a few numbers are probed past a missing one).
   */
  async settlements(request: SettlementFetchRequest): Promise<SettlementPage> {
    const { credentials } = request;
    const merchantAccount = credentials.merchant_account ?? '';
    if (request.report) {
      const fileName = this.fileNameOf(credentials, request.report);
      const text = await this.download(credentials, fileName);
      if (text === null)
        throw new ConnectorError('unavailable', `Adyen does not serve ${fileName} (yet): it is asked again later`);
      return {
        lines: parseSettlementReport(fileName, text, merchantAccount).lines,
        cursor: laterOf(request.cursor, fileName),
        done: true,
      };
    }
    const last = request.cursor === null ? firstBatchOf(credentials) - 1 : settlementBatchOf(request.cursor);
    if (last === null)
      throw new ConnectorError(
        'invalid_request',
        `The Adyen settlement cursor ${JSON.stringify(request.cursor)} is not a report file name`,
      );
    for (let next = last + 1; next <= last + ADYEN_BATCH_LOOKAHEAD; next += 1) {
      const fileName = settlementReportName(next);
      const text = await this.download(credentials, fileName);
      if (text === null) continue;
      const lines = parseSettlementReport(fileName, text, merchantAccount).lines.filter(
        (line) => line.postedAt >= request.since,
      );
      return { lines, cursor: fileName, done: false };
    }
    return { lines: [], cursor: request.cursor, done: true };
  }
}

function firstBatchOf(credentials: Record<string, string>): number {
  const first = credentials.settlement_first_batch?.trim() ?? '';
  return isDigits(first) && first.length <= 9 && Number(first) > 0 ? Number(first) : 1;
}

/** The report user's authentication: its API key, else its basic authentication. */
function authorizationOf(credentials: Record<string, string>): Record<string, string> {
  const key = credentials.report_api_key?.trim();
  if (key) return { 'x-api-key': key };
  const user = credentials.report_username?.trim();
  if (user && credentials.report_password)
    return {
      authorization: `Basic ${Buffer.from(`${user}:${credentials.report_password}`, 'utf8').toString('base64')}`,
    };
  throw new ConnectorError(
    'invalid_request',
    'The Adyen payment service has no report credentials: set report_api_key (the API key of a Report service user), or report_username and report_password',
  );
}
