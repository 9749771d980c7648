import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { put } from '../api.ts';
import type { PageProps } from '../pages.tsx';
import { hasScope } from '../session.ts';
import { useCursorList } from '../ui/async.ts';
import { ErrorNotice, ListTable, PageHeader, Status, useAction } from '../ui/components.tsx';
import { dateTime } from '../ui/format.ts';

interface Incident {
  id: string;
  display_name: string;
  notes: string | null;
  created_at: string;
  closed_at: string | null;
}

/** Incidents of the authorization-rate monitors; acknowledging one writes a note on it. */
export function MonitoringPage({ scopes }: PageProps): JSX.Element {
  const list = useCursorList<Incident>('/monitoring/incidents', {});
  const canWrite = hasScope(scopes, 'monitoring.write');
  return (
    <section>
      <PageHeader title="Monitoring" />
      <ListTable
        list={list}
        caption="Monitoring incidents"
        empty="No incident: every monitored rate is healthy."
        rowKey={(i) => i.id}
        columns={[
          { title: 'Metric', cell: (i) => i.display_name },
          { title: 'Opened', cell: (i) => dateTime(i.created_at) },
          { title: 'State', cell: (i) => <Status value={i.closed_at ? 'closed' : 'open'} /> },
          {
            title: 'Notes',
            cell: (i) => (canWrite ? <Acknowledge incident={i} onDone={list.reload} /> : (i.notes ?? '—')),
          },
        ]}
      />
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
