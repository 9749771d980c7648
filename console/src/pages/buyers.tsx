import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { get } from '../api.ts';
import type { PageProps } from '../pages.tsx';
import { Link } from '../router.tsx';
import { useAsync, useCursorList } from '../ui/async.ts';
import { ErrorNotice, Field, ListTable, Loading, PageHeader } from '../ui/components.tsx';
import { dateTime } from '../ui/format.ts';

/** Billing details come masked from the API unless the role unmasks them (buyers.billing-details.read). */
interface Buyer {
  id: string;
  display_name: string | null;
  external_identifier: string | null;
  billing_details: {
    first_name?: string | null;
    last_name?: string | null;
    email_address?: string | null;
    phone_number?: string | null;
  } | null;
  created_at: string;
}
interface StoredMethod {
  id: string;
  method: string;
  scheme: string | null;
  label: string | null;
  expiration_date: string | null;
}

export function BuyersPage(_props: PageProps): JSX.Element {
  const [draft, setDraft] = useState('');
  const [search, setSearch] = useState('');
  const list = useCursorList<Buyer>('/buyers', { search });
  return (
    <section>
      <PageHeader title="Buyers" />
      <form
        class="filters"
        aria-label="Search buyers"
        onSubmit={(e) => {
          e.preventDefault();
          setSearch(draft);
        }}
      >
        <Field label="Name or external identifier starts with">
          <input type="search" name="search" value={draft} onInput={(e) => setDraft(e.currentTarget.value)} />
        </Field>
        <div class="filter-actions">
          <button type="submit">Search</button>
        </div>
      </form>
      <ListTable
        list={list}
        caption="Buyers"
        empty="No buyer matches."
        rowKey={(b) => b.id}
        columns={[
          { title: 'Name', cell: (b) => <Link href={`/buyers/${b.id}`}>{b.display_name ?? b.id}</Link> },
          { title: 'External identifier', cell: (b) => b.external_identifier ?? '—' },
          { title: 'E-mail', cell: (b) => b.billing_details?.email_address ?? '—' },
          { title: 'Created', cell: (b) => dateTime(b.created_at) },
        ]}
      />
    </section>
  );
}

export function BuyerPage({ params }: PageProps): JSX.Element {
  const id = params.id!;
  const buyer = useAsync(() => get<Buyer>(`/buyers/${encodeURIComponent(id)}`), id);
  const methods = useCursorList<StoredMethod>('/payment-methods', { buyer_id: id });
  if (buyer.error) return <ErrorNotice error={buyer.error} />;
  if (!buyer.data) return <Loading />;
  const b = buyer.data;
  const details = b.billing_details;
  return (
    <section>
      <p>
        <Link href="/buyers">← Buyers</Link>
      </p>
      <PageHeader title={b.display_name ?? b.id} />
      <dl class="summary">
        {[
          ['External identifier', b.external_identifier ?? '—'],
          ['Name', details ? [details.first_name, details.last_name].filter(Boolean).join(' ') || '—' : '—'],
          ['E-mail', details?.email_address ?? '—'],
          ['Phone', details?.phone_number ?? '—'],
          ['Created', dateTime(b.created_at)],
        ].map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd>{v}</dd>
          </div>
        ))}
      </dl>
      <section class="card">
        <h2>Stored payment methods</h2>
        <ListTable
          list={methods}
          caption="Stored payment methods"
          empty="No stored payment method."
          rowKey={(m) => m.id}
          columns={[
            { title: 'Method', cell: (m) => m.scheme ?? m.method },
            { title: 'Card', cell: (m) => (m.label ? `•••• ${m.label}` : '—') },
            { title: 'Expires', cell: (m) => m.expiration_date ?? '—' },
          ]}
        />
      </section>
    </section>
  );
}
