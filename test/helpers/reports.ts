import { gunzipSync } from 'node:zlib';
import { expect } from 'vitest';
import type { TestApp } from './build-test-app.ts';

/** POST /reports with a once-enabled transactions report unless the body says otherwise. */
export async function postReport(
  t: TestApp,
  merchantAccountId: string,
  body: Record<string, unknown> = {},
  scopes?: string[],
) {
  return t.request({
    method: 'POST',
    url: '/reports',
    merchantAccountId,
    ...(scopes ? { scopes } : {}),
    payload: {
      name: 'Transactions',
      schedule: 'once',
      schedule_enabled: true,
      spec: { model: 'transactions', params: {} },
      ...body,
    },
  });
}

/** Creates a report, runs the queue, returns the report and its (latest) execution. */
export async function runReport(
  t: TestApp,
  merchantAccountId: string,
  body: Record<string, unknown> = {},
  scopes?: string[],
) {
  const res = await postReport(t, merchantAccountId, body, scopes);
  expect(res.statusCode, res.body).toBe(201);
  await t.deps.queue.drain(t.deps);
  const report = (await t.request({ method: 'GET', url: `/reports/${res.json().id}`, merchantAccountId })).json();
  return { report, execution: report.latest_execution };
}

/** A signed URL of the execution's file, then the file through it (no token), gunzipped and parsed. */
export async function downloadCsv(t: TestApp, merchantAccountId: string, reportId: string, executionId: string) {
  const url = await t.request({
    method: 'POST',
    url: `/reports/${reportId}/executions/${executionId}/url`,
    merchantAccountId,
    payload: {},
  });
  expect(url.statusCode, url.body).toBe(200);
  const res = await t.app.inject({ method: 'GET', url: pathOf(url.json().url) });
  expect(res.statusCode, res.body).toBe(200);
  const text = gunzipSync(res.rawPayload).toString('utf8');
  return { text, rows: parseCsv(text) };
}

export const pathOf = (url: string) => {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
};

/** RFC 4180 reader for the tests (quoted fields, doubled quotes, CRLF). */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') (field += '"'), i++;
      else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') row.push(field), (field = '');
    else if (ch === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      (row = []), (field = ''), i++;
    } else field += ch;
  }
  return rows;
}

/** Rows as objects keyed by the header. */
export const records = (rows: string[][]) =>
  rows.slice(1).map((r) => Object.fromEntries(rows[0]!.map((h, i) => [h, r[i]!])));
