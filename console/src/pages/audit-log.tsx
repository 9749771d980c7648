import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import type { PageProps } from '../pages.tsx';
import { useCursorList } from '../ui/async.ts';
import { Field, ListTable, PageHeader } from '../ui/components.tsx';
import { dateTime, label } from '../ui/format.ts';

interface AuditLogEntry {
  id: string;
  action: string;
  timestamp: string;
  resource: { type: string; id: string; name: string };
  user: { id: string | null; name: string | null; email_address?: string | null; staff?: boolean };
}

export function AuditLogPage(_props: PageProps): JSX.Element {
  const [draft, setDraft] = useState('');
  const [resourceType, setResourceType] = useState('');
  const list = useCursorList<AuditLogEntry>('/audit-logs', { resource_type: resourceType });
  return (
    <section>
      <PageHeader title="Audit log" />
      <form
        class="filters"
        aria-label="Filter the audit log"
        onSubmit={(e) => {
          e.preventDefault();
          setResourceType(draft);
        }}
      >
        <Field label="Resource type" hint="e.g. transaction, payment-service, api-key-pair">
          <input name="resource_type" value={draft} onInput={(e) => setDraft(e.currentTarget.value)} />
        </Field>
        <div class="filter-actions">
          <button type="submit">Apply</button>
        </div>
      </form>
      <ListTable
        list={list}
        caption="Audit log"
        empty="Nothing recorded yet."
        rowKey={(e) => e.id}
        columns={[
          { title: 'When', cell: (e) => dateTime(e.timestamp) },
          { title: 'Who', cell: (e) => e.user.name ?? e.user.id ?? '—' },
          { title: 'Action', cell: (e) => label(e.action) },
          { title: 'Resource', cell: (e) => `${label(e.resource.type)}: ${e.resource.name || e.resource.id}` },
        ]}
      />
    </section>
  );
}
