import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { post, put } from '../api.ts';
import type { PageProps } from '../pages.tsx';
import { hasScope } from '../session.ts';
import { useCursorList } from '../ui/async.ts';
import {
  ConfirmAction,
  ErrorNotice,
  Field,
  ListTable,
  PageHeader,
  Status,
  Success,
  useAction,
} from '../ui/components.tsx';
import { dateTime, label } from '../ui/format.ts';

interface WebhookSubscription {
  id: string;
  url: string;
  active: boolean;
  created_at: string;
}
interface Delivery {
  id: string;
  event_kind: string;
  status: string;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  delivered_at: string | null;
}

/** Subscriptions (create, enable/disable, rotate the signing secret) and each one's deliveries (retry). */
export function WebhooksPage({ scopes }: PageProps): JSX.Element {
  const list = useCursorList<WebhookSubscription>('/webhook-subscriptions', {});
  const act = useAction();
  const [notice, setNotice] = useState<string | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const canWrite = hasScope(scopes, 'webhook-subscriptions.write');
  const run = (text: string, action: () => Promise<unknown>) =>
    act.run(async () => {
      await action();
      setNotice(text);
      list.reload();
    });
  return (
    <section>
      <PageHeader title="Webhooks" />
      {canWrite ? <CreateSubscription onCreated={list.reload} /> : null}
      <ErrorNotice error={act.error} />
      {notice ? <Success>{notice}</Success> : null}
      <ListTable
        list={list}
        caption="Webhook subscriptions"
        empty="No webhook subscription yet."
        rowKey={(w) => w.id}
        columns={[
          { title: 'Address', cell: (w) => <code class="wrap">{w.url}</code> },
          { title: 'State', cell: (w) => <Status value={w.active ? 'active' : 'disabled'} /> },
          { title: 'Created', cell: (w) => dateTime(w.created_at) },
          {
            title: 'Deliveries',
            cell: (w) => (
              <button
                type="button"
                class="secondary"
                aria-expanded={open === w.id}
                onClick={() => setOpen(open === w.id ? null : w.id)}
              >
                {open === w.id ? 'Hide deliveries' : 'Show deliveries'}
              </button>
            ),
          },
          ...(canWrite
            ? [
                {
                  title: 'Actions',
                  cell: (w: WebhookSubscription) => (
                    <span class="actions">
                      <button
                        type="button"
                        class="secondary"
                        onClick={() =>
                          void run(w.active ? 'Subscription disabled.' : 'Subscription enabled.', () =>
                            put(`/webhook-subscriptions/${w.id}`, { active: !w.active }),
                          )
                        }
                      >
                        {w.active ? 'Disable' : 'Enable'}
                      </button>
                      <ConfirmAction
                        label="Rotate secret"
                        question="Start a new signing secret? The old one keeps working for a while."
                        onConfirm={() =>
                          run('The signing secret is being rotated.', () =>
                            post(`/webhook-subscriptions/${w.id}/rotate-secret`),
                          )
                        }
                      />
                    </span>
                  ),
                },
              ]
            : []),
        ]}
      />
      {open ? <Deliveries key={open} subscriptionId={open} canWrite={canWrite} /> : null}
    </section>
  );
}

function CreateSubscription({ onCreated }: { onCreated: () => void }): JSX.Element {
  const [url, setUrl] = useState('');
  const action = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      await post('/webhook-subscriptions', { url });
      setUrl('');
      onCreated();
    });
  };
  return (
    <form class="card inline-form" onSubmit={submit}>
      <h2>Add a subscription</h2>
      <ErrorNotice error={action.error} />
      <Field label="Address (https)">
        <input type="url" name="url" required value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
      </Field>
      <button type="submit" disabled={action.busy}>
        Add subscription
      </button>
    </form>
  );
}

function Deliveries({ subscriptionId, canWrite }: { subscriptionId: string; canWrite: boolean }): JSX.Element {
  const list = useCursorList<Delivery>(`/webhook-subscriptions/${subscriptionId}/deliveries`, {});
  const retry = useAction();
  return (
    <section class="card">
      <h2>Deliveries</h2>
      <ErrorNotice error={retry.error} />
      <ListTable
        list={list}
        caption="Webhook deliveries"
        empty="Nothing delivered to this subscription yet."
        rowKey={(d) => d.id}
        columns={[
          { title: 'Event', cell: (d) => label(d.event_kind) },
          { title: 'Status', cell: (d) => <Status value={d.status} /> },
          { title: 'Attempts', class: 'num', cell: (d) => d.attempts },
          {
            title: 'Last answer',
            cell: (d) => [d.last_status_code, d.last_error].filter((v) => v !== null).join(' · ') || '—',
          },
          { title: 'Delivered', cell: (d) => dateTime(d.delivered_at) },
          { title: 'Next attempt', cell: (d) => dateTime(d.next_attempt_at) },
          ...(canWrite
            ? [
                {
                  title: 'Retry',
                  cell: (d: Delivery) =>
                    d.status === 'delivered' ? null : (
                      <button
                        type="button"
                        class="secondary"
                        onClick={() =>
                          void retry.run(async () => {
                            await post(`/webhook-subscriptions/${subscriptionId}/deliveries/${d.id}/retry`);
                            list.reload();
                          })
                        }
                      >
                        Retry
                      </button>
                    ),
                },
              ]
            : []),
        ]}
      />
    </section>
  );
}
