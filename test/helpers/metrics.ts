import type { TestApp } from './build-test-app.ts';

export const METRICS_TOKEN = 'metrics-token-for-tests-0123456789abcdef';

/** Scrapes GET /metrics of a test app with the metrics token. */
export async function scrape(t: TestApp): Promise<string> {
  const res = await t.app.inject({
    method: 'GET',
    url: '/metrics',
    headers: { authorization: `Bearer ${METRICS_TOKEN}` },
  });
  if (res.statusCode !== 200) throw new Error(`GET /metrics answered ${res.statusCode}: ${res.body}`);
  return res.body;
}

/**
 * The value of one sample in Prometheus text: `name` with exactly these labels (in any order), or
 * 0 when the series does not exist yet (a counter that never moved).
 */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).sort(([a], [b]) => a.localeCompare(b));
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const got = [...(match[2] ?? '').matchAll(/([a-zA-Z_]+)="((?:[^"\\]|\\.)*)"/g)]
      .map((m) => [m[1]!, m[2]!] as const)
      .sort(([a], [b]) => a.localeCompare(b));
    if (got.length === wanted.length && got.every(([k, v], i) => wanted[i]![0] === k && wanted[i]![1] === v))
      return Number(match[3]);
  }
  return 0;
}

/** Every label value of `label` among the samples of `name`. */
export function labelValues(text: string, name: string, label: string): string[] {
  const values = new Set<string>();
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name}_bucket{`) && !line.startsWith(`${name}_count{`))
      continue;
    const value = new RegExp(`${label}="([^"]*)"`).exec(line)?.[1];
    if (value !== undefined) values.add(value);
  }
  return [...values];
}
