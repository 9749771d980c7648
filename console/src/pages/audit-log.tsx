import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { PageProps } from '../pages.tsx';
import { useCursorList } from '../ui/async.ts';
import { ErrorNotice, Field, ListTable, PageHeader } from '../ui/components.tsx';
import { dateTime, label } from '../ui/format.ts';
import { AUDIT_ACTIONS, NO_AUDIT_FILTERS, auditQuery, seenTypes, type AuditFilters } from './audit-filters.ts';

interface AuditLogEntry {
  id: string;
  action: string;
  timestamp: string;
  resource: { type: string; id: string; name: string };
  user: { id: string | null; name: string | null; email_address?: string | null };
}

/** Every change made in the account, newest first, by action, resource type and user. */
export function AuditLogPage({ user }: PageProps): JSX.Element {
  const [draft, setDraft] = useState<AuditFilters>(NO_AUDIT_FILTERS);
  const [applied, setApplied] = useState<AuditFilters>(NO_AUDIT_FILTERS);
  const [problem, setProblem] = useState<Error | null>(null);
  const [types, setTypes] = useState<string[]>([]);
  const list = useCursorList<AuditLogEntry>('/audit-logs', { ...applied });
  useEffect(() => {
    if (list.data) setTypes((known) => seenTypes(known, list.data!.items));
  }, [list.data]);
  const apply = (next: AuditFilters) => {
    const checked = auditQuery(next);
    if ('error' in checked) {
      setProblem(new Error(checked.error));
      return;
    }
    setProblem(null);
    setDraft(checked.query);
    setApplied(checked.query);
  };
  const set = (key: keyof AuditFilters) => (e: Event) =>
    setDraft({ ...draft, [key]: (e.currentTarget as HTMLInputElement).value });
  return (
    <section>
      <PageHeader title="Audit log" />
      <form
        class="filters"
        aria-label="Filter the audit log"
        onSubmit={(e) => {
          e.preventDefault();
          apply(draft);
        }}
      >
        <Field label="Action">
          <select name="action" value={draft.action} onChange={set('action')}>
            <option value="">Any</option>
            {AUDIT_ACTIONS.map((a) => (
              <option value={a}>{a}</option>
            ))}
          </select>
        </Field>
        <Field label="Resource type" hint="e.g. transaction, payment-service, api-key-pair">
          <input
            name="resource_type"
            list="audit-resource-types"
            value={draft.resource_type}
            onInput={set('resource_type')}
          />
        </Field>
        <datalist id="audit-resource-types">
          {types.map((t) => (
            <option value={t} key={t} />
          ))}
        </datalist>
        <Field label="User id" hint="or a row's “Only this user”">
          <input name="user_id" value={draft.user_id} onInput={set('user_id')} />
        </Field>
        <div class="filter-actions">
          <button type="submit">Apply</button>
          <button type="button" class="secondary" onClick={() => apply({ ...draft, user_id: user.id })}>
            My actions
          </button>
          <button type="button" class="secondary" onClick={() => apply(NO_AUDIT_FILTERS)}>
            Clear
          </button>
        </div>
      </form>
      <ErrorNotice error={problem} />
      <ListTable
        list={list}
        caption="Audit log"
        empty="Nothing recorded matches."
        rowKey={(e) => e.id}
        columns={[
          { title: 'When', cell: (e) => dateTime(e.timestamp) },
          {
            title: 'Who',
            cell: (e) => (
              <span>
                {e.user.name || e.user.id || '—'}
                {e.user.id && e.user.id !== applied.user_id ? (
                  <>
                    {' '}
                    <button
                      type="button"
                      class="link"
                      aria-label={`Only the actions of ${e.user.name || e.user.id}`}
                      onClick={() => apply({ ...applied, user_id: e.user.id! })}
                    >
                      Only this user
                    </button>
                  </>
                ) : null}
              </span>
            ),
          },
          { title: 'Action', cell: (e) => label(e.action) },
          { title: 'Resource', cell: (e) => `${label(e.resource.type)}: ${e.resource.name || e.resource.id}` },
        ]}
      />
    </section>
  );
}
