import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { post, put } from '../api.ts';
import type { PageProps } from '../pages.tsx';
import { hasScope } from '../session.ts';
import { useCursorList } from '../ui/async.ts';
import { ErrorNotice, Field, ListTable, PageHeader, Status, useAction } from '../ui/components.tsx';
import { dateTime } from '../ui/format.ts';
import { ReportExecutions, useDownload } from './report-executions.tsx';

interface Report {
  id: string;
  name: string;
  schedule: string;
  schedule_enabled: boolean;
  next_execution_at: string | null;
  created_at: string;
  spec: { model: string };
  latest_execution: { id: string; status: string; created_at?: string } | null;
}

const MODELS = ['transactions', 'transaction_retries', 'detailed_settlement', 'accounts_receivables'] as const;
const SCHEDULES = ['once', 'daily', 'weekly', 'monthly'] as const;

/**
 * Reports: create one (once or on a schedule), pause or resume a schedule, each report's executions
 * with their files. The API has no route to change a report's schedule or to run a report now.
 */
export function ReportsPage({ scopes }: PageProps): JSX.Element {
  const list = useCursorList<Report>('/reports', {});
  const download = useDownload();
  const toggle = useAction();
  const [shown, setShown] = useState<Report | null>(null);
  const canWrite = hasScope(scopes, 'reports.write');
  const setSchedule = (report: Report, enabled: boolean) =>
    toggle.run(async () => {
      await put(`/reports/${report.id}`, { schedule_enabled: enabled });
      list.reload();
    });
  return (
    <section>
      <PageHeader title="Reports" />
      {canWrite ? <CreateReport onCreated={list.reload} /> : null}
      <ErrorNotice error={download.error} />
      <ErrorNotice error={toggle.error} />
      <ListTable
        list={list}
        caption="Reports"
        empty="No report yet."
        rowKey={(r) => r.id}
        columns={[
          { title: 'Name', cell: (r) => r.name },
          { title: 'Model', cell: (r) => r.spec.model.replace(/_/g, ' ') },
          {
            title: 'Schedule',
            cell: (r) => (
              <span>
                {r.schedule}
                {r.schedule === 'once' ? '' : r.schedule_enabled ? ' (on)' : ' (paused)'}
                {canWrite && r.schedule !== 'once' ? (
                  <>
                    {' '}
                    <button
                      type="button"
                      class="secondary"
                      disabled={toggle.busy}
                      onClick={() => void setSchedule(r, !r.schedule_enabled)}
                    >
                      {r.schedule_enabled ? `Pause ${r.name}` : `Resume ${r.name}`}
                    </button>
                  </>
                ) : null}
              </span>
            ),
          },
          { title: 'Next run', cell: (r) => dateTime(r.next_execution_at) },
          {
            title: 'Latest run',
            cell: (r) => (r.latest_execution ? <Status value={r.latest_execution.status} /> : '—'),
          },
          {
            title: 'File',
            cell: (r) =>
              r.latest_execution?.status === 'succeeded' ? (
                <button type="button" class="secondary" onClick={() => download.start(r.id, r.latest_execution!.id)}>
                  Download {r.name}
                </button>
              ) : (
                '—'
              ),
          },
          {
            title: 'Executions',
            cell: (r) => (
              <button type="button" class="secondary" aria-expanded={shown?.id === r.id} onClick={() => setShown(r)}>
                Executions of {r.name}
              </button>
            ),
          },
        ]}
      />
      <p>
        <button type="button" class="secondary" onClick={list.reload}>
          Refresh
        </button>
      </p>
      {shown ? <ReportExecutions key={shown.id} report={shown} onClose={() => setShown(null)} /> : null}
    </section>
  );
}

function CreateReport({ onCreated }: { onCreated: () => void }): JSX.Element {
  const [form, setForm] = useState({ name: '', model: 'transactions', schedule: 'once', timezone: 'Etc/UTC' });
  const action = useAction();
  const set = (key: keyof typeof form) => (e: Event) =>
    setForm({ ...form, [key]: (e.currentTarget as HTMLInputElement).value });
  const submit = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      await post('/reports', {
        name: form.name,
        schedule: form.schedule,
        schedule_enabled: true,
        schedule_timezone: form.timezone,
        spec: { model: form.model, params: {} },
      });
      setForm({ ...form, name: '' });
      onCreated();
    });
  };
  return (
    <form class="card inline-form" onSubmit={submit}>
      <h2>Create a report</h2>
      <ErrorNotice error={action.error} />
      <Field label="Name">
        <input name="name" required maxLength={200} value={form.name} onInput={set('name')} />
      </Field>
      <Field label="Model">
        <select name="model" value={form.model} onChange={set('model')}>
          {MODELS.map((m) => (
            <option value={m}>{m.replace(/_/g, ' ')}</option>
          ))}
        </select>
      </Field>
      <Field label="Schedule" hint="once runs now">
        <select name="schedule" value={form.schedule} onChange={set('schedule')}>
          {SCHEDULES.map((s) => (
            <option value={s}>{s}</option>
          ))}
        </select>
      </Field>
      <Field label="Time zone">
        <input name="schedule_timezone" value={form.timezone} onInput={set('timezone')} />
      </Field>
      <button type="submit" disabled={action.busy}>
        Create report
      </button>
    </form>
  );
}
