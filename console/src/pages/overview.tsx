import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { get, withQuery, type ListPage } from '../api.ts';
import type { PageProps } from '../pages.tsx';
import { hasScope } from '../session.ts';
import { Link } from '../router.tsx';
import { useAsync } from '../ui/async.ts';
import { PeriodChart } from '../ui/chart.tsx';
import { Empty, ErrorNotice, Field, Loading, PageHeader } from '../ui/components.tsx';
import { dateTime, money, percent } from '../ui/format.ts';

interface Series {
  first_interval: string;
  values: Array<number | null>;
}
interface Totals {
  series: { current: Series; previous: Series | null };
  summary: { current: { value: number | null }; previous: { value: number | null } | null; delta: number | null };
}
interface Incident {
  id: string;
  display_name: string;
  created_at: string;
  closed_at: string | null;
}

const PERIODS = { '24 h': 'PT24H/hour_end', '7 d': 'P7D/hour_end', '30 d': 'P30D/hour_end' } as const;
type Period = keyof typeof PERIODS;
const STEP_MS: Record<string, number> = { PT1M: 60_000, PT1H: 3_600_000, P1D: 86_400_000 };

/** The bucket start times of a series: its first interval's start, then one step after another (seconds, for uPlot). */
function times(series: Series): number[] {
  const [start = '', step = 'PT1H'] = series.first_interval.split('/');
  const first = Date.parse(start);
  const ms = STEP_MS[step] ?? 3_600_000;
  return series.values.map((_v, i) => (first + i * ms) / 1000);
}

export function OverviewPage({ scopes }: PageProps): JSX.Element {
  const [period, setPeriod] = useState<Period>('7 d');
  const [currency, setCurrency] = useState('EUR');
  return (
    <section>
      <PageHeader title="Overview">
        <fieldset class="segmented">
          <legend class="visually-hidden">Period</legend>
          {(Object.keys(PERIODS) as Period[]).map((p) => (
            <button
              type="button"
              key={p}
              class={p === period ? '' : 'secondary'}
              aria-pressed={p === period}
              onClick={() => setPeriod(p)}
            >
              {p}
            </button>
          ))}
        </fieldset>
        <Field label="Currency">
          <input
            name="currency"
            size={4}
            maxLength={3}
            value={currency}
            onChange={(e) => setCurrency(e.currentTarget.value.toUpperCase())}
          />
        </Field>
      </PageHeader>
      <div class="metrics">
        <Metric
          title="Volume"
          metric="volume"
          range={PERIODS[period]}
          currency={currency}
          format={(v) => money(v, currency)}
        />
        <Metric
          title="Transactions"
          metric="transactions"
          range={PERIODS[period]}
          format={(v) => (v === null ? '—' : String(Math.round(v)))}
        />
        <Metric title="Authorization rate" metric="auth_rate" range={PERIODS[period]} format={percent} rate />
      </div>
      {hasScope(scopes, 'monitoring.read') ? <OpenIncidents /> : null}
    </section>
  );
}

function Metric(props: {
  title: string;
  metric: string;
  range: string;
  currency?: string;
  format: (v: number | null) => string;
  rate?: boolean;
}): JSX.Element {
  const url = withQuery(`/metrics-explorer/authorization/metrics/${props.metric}/totals`, {
    datetime_range: props.range,
    currency: props.currency,
  });
  const totals = useAsync(() => get<Totals>(url), url);
  const t = totals.data;
  const delta = t?.summary.delta;
  return (
    <section class="card metric">
      <h2>{props.title}</h2>
      {totals.error ? (
        <ErrorNotice error={totals.error} />
      ) : !t ? (
        <Loading />
      ) : (
        <>
          <p class="figure">{props.format(t.summary.current.value)}</p>
          <p class="muted">
            Previous period: {props.format(t.summary.previous?.value ?? null)}
            {delta === null || delta === undefined
              ? ''
              : props.rate
                ? ` (${delta >= 0 ? '+' : ''}${(delta * 100).toFixed(1)} points)`
                : ` (${delta >= 0 ? '+' : ''}${delta.toFixed(1)} %)`}
          </p>
          <PeriodChart
            title={`${props.title}: this period and the previous one`}
            times={times(t.series.current)}
            current={t.series.current.values}
            previous={t.series.previous?.values ?? null}
            format={props.format}
            rate={props.rate}
          />
        </>
      )}
    </section>
  );
}

function OpenIncidents(): JSX.Element {
  const incidents = useAsync(() => get<ListPage<Incident>>('/monitoring/incidents?limit=50'), 'incidents');
  const open = incidents.data?.items.filter((i) => i.closed_at === null) ?? [];
  return (
    <section class="card">
      <h2>Open monitoring incidents</h2>
      {incidents.error ? (
        <ErrorNotice error={incidents.error} />
      ) : !incidents.data ? (
        <Loading />
      ) : open.length === 0 ? (
        <Empty>No open incident.</Empty>
      ) : (
        <ul class="plain">
          {open.map((i) => (
            <li key={i.id}>
              <Link href="/monitoring">{i.display_name}</Link> · opened {dateTime(i.created_at)}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
