import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { METRICS_TOKEN, scrape } from '../helpers/metrics.ts';
import { ROOT } from '../helpers/spawn-server.ts';

/** The dashboard, the alert rules and docs/operating.md speak of metrics the server really exposes. */
let t: TestApp;
let exposed: Set<string>;
beforeAll(async () => {
  t = await buildTestApp({ METRICS_TOKEN });
  const text = await scrape(t);
  exposed = new Set<string>();
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    exposed.add(name!);
    if (type === 'histogram') for (const suffix of ['_bucket', '_count', '_sum']) exposed.add(`${name}${suffix}`);
    // The default process metrics include some summaries and gauges with these suffixes.
    if (type === 'summary') for (const suffix of ['_count', '_sum']) exposed.add(`${name}${suffix}`);
  }
});
afterAll(async () => {
  await t.close();
});

const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
const metricNames = (text: string) => [
  ...new Set([...text.matchAll(/\b((?:svc|process|nodejs)_[a-z0-9_]+)\b/g)].map((m) => m[1]!)),
];

interface Rule {
  alert: string;
  expr: string;
  annotations: { summary: string };
  labels: { severity: string };
}

describe('happy', () => {
  it('alert rules use exposed metrics, one alert each for approval rate, connector errors, webhook backlog and job lag', () => {
    const rules = (parse(read('docs/ops/alerts.yaml')) as { groups: Array<{ rules: Rule[] }> }).groups.flatMap(
      (g) => g.rules,
    );
    for (const rule of rules) {
      expect(rule.annotations.summary, rule.alert).toBeTruthy();
      expect(['page', 'warn']).toContain(rule.labels.severity);
      for (const name of metricNames(rule.expr)) expect(exposed.has(name), `${rule.alert}: ${name}`).toBe(true);
    }
    const byMetric = (name: string) => rules.filter((r) => r.expr.includes(name)).map((r) => r.alert);
    expect(byMetric('svc_authorizations_total')).toContain('SvcApprovalRateDrop');
    expect(byMetric('svc_connector_call_duration_seconds_count')).toContain('SvcConnectorErrors');
    expect(byMetric('svc_webhook_oldest_pending_seconds')).toContain('SvcWebhookBacklog');
    expect(byMetric('svc_job_queue_lag_seconds')).toContain('SvcJobLag');
  });

  it('the Grafana dashboard queries exposed metrics only', () => {
    const dashboard = JSON.parse(read('docs/ops/grafana-dashboard.json')) as {
      panels: Array<{ title: string; targets: Array<{ expr: string }> }>;
    };
    expect(dashboard.panels.length).toBeGreaterThanOrEqual(10);
    const used = new Set<string>();
    for (const panel of dashboard.panels) {
      for (const target of panel.targets) {
        for (const name of metricNames(target.expr)) {
          expect(exposed.has(name), `${panel.title}: ${name}`).toBe(true);
          used.add(name.replace(/_(bucket|count|sum)$/, ''));
        }
      }
    }
    // Every family of ours is on the dashboard.
    for (const name of exposed)
      if (name.startsWith('svc_') && !/_(bucket|count|sum)$/.test(name)) expect(used, name).toContain(name);
  });
});

describe('errors', () => {
  it('docs/operating.md lists every svc_ family and no family that does not exist', () => {
    const section = read('docs/operating.md').split('\n## Metrics\n')[1]!.split('\n## Server-Timing\n')[0]!;
    const listed = metricNames(section).filter((n) => n.startsWith('svc_'));
    for (const name of listed) expect(exposed.has(name), name).toBe(true);
    for (const name of exposed)
      if (name.startsWith('svc_') && !/_(bucket|count|sum)$/.test(name)) expect(listed, name).toContain(name);
  });
});

describe('security', () => {
  it('no alert or panel groups by a label that could hold ids', () => {
    const text = read('docs/ops/alerts.yaml') + read('docs/ops/grafana-dashboard.json');
    for (const [, labels] of text.matchAll(/by \(([^)]*)\)/g)) {
      for (const label of labels!.split(',').map((l) => l.trim()))
        expect([
          'operation',
          'status',
          'payment_service_definition',
          'outcome',
          'job',
          'state',
          'instance',
          'le',
        ]).toContain(label);
    }
  });
});
