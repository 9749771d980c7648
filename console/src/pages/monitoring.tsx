import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { put } from '../api.ts';
import type { PageProps } from '../pages.tsx';
import { hasScope } from '../session.ts';
import { useCursorList } from '../ui/async.ts';
import { ErrorNotice, ListTable, PageHeader, Status, useAction } from '../ui/components.tsx';
import { dateTime, percent } from '../ui/format.ts';
import { metricSummary, type MetricPolicies } from './monitoring-metrics.ts';

interface Incident {
  id: string;
  display_name: string;
  notes: string | null;
  created_at: string;
  closed_at: string | null;
}

interface Metric extends MetricPolicies {
  id: string;
  display_name: string;
  spec: { model: string };
}

/** The authorization-rate monitors with their last hour, beside their incidents; acknowledging an incident writes a note on it. */
export function MonitoringPage({ scopes }: PageProps): JSX.Element {
  const [metric, setMetric] = useState<Metric | null>(null);
  const metrics = useCursorList<Metric>('/monitoring/metrics', { samples_timestamp_interval: 'PT60M/now' }, 5);
  const incidents = useCursorList<Incident>(
    metric ? `/monitoring/metrics/${metric.id}/incidents` : '/monitoring/incidents',
    {},
  );
  const canWrite = hasScope(scopes, 'monitoring.write');
  return (
    <section>
      <PageHeader title="Monitoring" />
      <div class="split">
        <section class="card" aria-labelledby="metrics-title">
          <h2 id="metrics-title">Metrics (last hour)</h2>
          <ListTable
            list={metrics}
            caption="Monitoring metrics"
            empty="No metric is monitored: create one with POST /monitoring/metrics."
            rowKey={(m) => m.id}
            columns={[
              {
                title: 'Metric',
                cell: (m) => (
                  <span>
                    {m.display_name}
                    <br />
                    <span class="context">
                      {metricSummary(m).thresholds}; {metricSummary(m).incidents}
                    </span>
                  </span>
                ),
              },
              { title: 'Latest', class: 'num', cell: (m) => percent(metricSummary(m).latest) },
              {
                title: 'Health',
                cell: (m) => {
                  const s = metricSummary(m);
                  return <Status value={s.healthy === null ? 'no_data' : s.healthy ? 'healthy' : 'unhealthy'} />;
                },
              },
              {
                title: 'Unhealthy',
                class: 'num',
                cell: (m) => `${metricSummary(m).unhealthy} of ${metricSummary(m).samples}`,
              },
              {
                title: 'Incidents',
                cell: (m) => (
                  <button
                    type="button"
                    class="secondary"
                    aria-label={`Incidents of ${m.display_name}`}
                    aria-pressed={metric?.id === m.id}
                    onClick={() => setMetric(metric?.id === m.id ? null : m)}
                  >
                    Show
                  </button>
                ),
              },
            ]}
          />
        </section>
        <section class="card" aria-labelledby="incidents-title">
          <h2 id="incidents-title">{metric ? `Incidents of ${metric.display_name}` : 'Incidents'}</h2>
          {metric ? (
            <p>
              <button type="button" class="secondary" onClick={() => setMetric(null)}>
                Every metric's incidents
              </button>
            </p>
          ) : null}
          <ListTable
            list={incidents}
            caption="Monitoring incidents"
            empty="No incident: every monitored rate is healthy."
            rowKey={(i) => i.id}
            columns={[
              { title: 'Metric', cell: (i) => i.display_name },
              { title: 'Opened', cell: (i) => dateTime(i.created_at) },
              { title: 'State', cell: (i) => <Status value={i.closed_at ? 'closed' : 'open'} /> },
              {
                title: 'Notes',
                cell: (i) => (canWrite ? <Acknowledge incident={i} onDone={incidents.reload} /> : (i.notes ?? '—')),
              },
            ]}
          />
        </section>
      </div>
    </section>
  );
}

function Acknowledge({ incident, onDone }: { incident: Incident; onDone: () => void }): JSX.Element {
  const [notes, setNotes] = useState(incident.notes ?? '');
  const action = useAction();
  return (
    <form
      class="inline"
      onSubmit={(e) => {
        e.preventDefault();
        void action.run(async () => {
          await put(`/monitoring/incidents/${incident.id}`, { notes: notes || null });
          onDone();
        });
      }}
    >
      <ErrorNotice error={action.error} />
      <input
        aria-label={`Notes on ${incident.display_name}`}
        maxLength={1000}
        value={notes}
        onInput={(e) => setNotes(e.currentTarget.value)}
      />
      <button type="submit" class="secondary" disabled={action.busy}>
        Acknowledge
      </button>
    </form>
  );
}
