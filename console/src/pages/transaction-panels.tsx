import type { JSX } from 'preact';
import { get, type ListPage } from '../api.ts';
import { hasScope } from '../session.ts';
import { useAsync, useCursorList } from '../ui/async.ts';
import { Empty, ErrorNotice, ListTable, Loading, ScrollRegion, Status } from '../ui/components.tsx';
import { dateTime, label, money } from '../ui/format.ts';
import { attemptsByService, settlementLines, type HistoryEvent, type SettlementLine } from './transaction-history.ts';

/** The lists of a transaction's detail page below its summary: each one a public read of the transaction. */

interface Refund {
  id: string;
  amount: number;
  currency: string;
  status: string;
  reason: string | null;
  settled: boolean;
  error_code: string | null;
  raw_response_description: string | null;
  created_at: string;
}
interface Capture {
  id: string;
  amount: number;
  status: string;
  final: boolean;
  captured_at: string | null;
  error_code: string | null;
  raw_response_description: string | null;
  created_at: string;
}
interface RoutingAction {
  id: string;
  flow: string;
  rule_id: string;
  created_at: string;
  outcome: Record<string, unknown>;
}

const answer = (row: { error_code: string | null; raw_response_description: string | null }) =>
  [row.error_code, row.raw_response_description].filter(Boolean).join(' · ') || '—';

export function Refunds({ id }: { id: string }): JSX.Element {
  const list = useCursorList<Refund>(`/transactions/${id}/refunds`, {});
  return (
    <section class="card" aria-labelledby="refunds-title">
      <h2 id="refunds-title">Refunds</h2>
      <ListTable
        list={list}
        caption="Refunds"
        empty="No refunds."
        rowKey={(r) => r.id}
        columns={[
          { title: 'When', cell: (r) => dateTime(r.created_at) },
          { title: 'Amount', class: 'num', cell: (r) => money(r.amount, r.currency) },
          { title: 'Status', cell: (r) => <Status value={r.status} /> },
          { title: 'Reason', cell: (r) => r.reason ?? '—' },
          { title: 'Answer', cell: answer },
          { title: 'Settled', cell: (r) => (r.settled ? 'yes' : 'no') },
        ]}
      />
    </section>
  );
}

export function Captures({ id, currency }: { id: string; currency: string }): JSX.Element {
  const list = useCursorList<Capture>(`/transactions/${id}/captures`, {});
  return (
    <section class="card" aria-labelledby="captures-title">
      <h2 id="captures-title">Captures</h2>
      <ListTable
        list={list}
        caption="Captures"
        empty="No captures."
        rowKey={(c) => c.id}
        columns={[
          { title: 'When', cell: (c) => dateTime(c.created_at) },
          { title: 'Amount', class: 'num', cell: (c) => money(c.amount, currency) },
          { title: 'Status', cell: (c) => <Status value={c.status} /> },
          { title: 'Final', cell: (c) => (c.final ? 'yes' : 'no') },
          { title: 'Captured', cell: (c) => dateTime(c.captured_at) },
          { title: 'Answer', cell: answer },
        ]}
      />
    </section>
  );
}

/** The payment service's settlement report lines: the transaction's and its refunds' (negative). */
export function Settlements({ id }: { id: string }): JSX.Element {
  const lines = useAsync(async () => {
    const [own, refunds] = await Promise.all([
      get<{ items: SettlementLine[] }>(`/transactions/${id}/settlements`),
      get<{ items: Array<{ id: string; refund_id: string }> }>(`/transactions/${id}/refund-settlements`),
    ]);
    return settlementLines(own.items, refunds.items);
  }, id);
  const fee = (s: SettlementLine, value: number | null) => money(value, s.currency);
  return (
    <section class="card" aria-labelledby="settlements-title">
      <h2 id="settlements-title">Settlements</h2>
      {lines.error ? (
        <ErrorNotice error={lines.error} />
      ) : !lines.data ? (
        <Loading />
      ) : lines.data.length === 0 ? (
        <Empty>Not settled yet: no settlement report of the payment service names this transaction.</Empty>
      ) : (
        <ScrollRegion label="Settlements">
          <table>
            <caption class="visually-hidden">Settlements</caption>
            <thead>
              <tr>
                <th scope="col">Posted</th>
                <th scope="col">Of</th>
                <th scope="col" class="num">
                  Amount
                </th>
                <th scope="col" class="num">
                  Commission
                </th>
                <th scope="col" class="num">
                  Interchange
                </th>
                <th scope="col" class="num">
                  Scheme fee
                </th>
                <th scope="col">Report</th>
              </tr>
            </thead>
            <tbody>
              {lines.data.map((s) => (
                <tr key={s.id}>
                  <td>{dateTime(s.posted_at)}</td>
                  <td>{s.refundId ? 'refund' : 'payment'}</td>
                  <td class="num">{money(s.amount, s.currency)}</td>
                  <td class="num">{fee(s, s.commission)}</td>
                  <td class="num">{fee(s, s.interchange)}</td>
                  <td class="num">{fee(s, s.scheme_fee)}</td>
                  <td>
                    <code class="wrap">{s.payment_service_report_id}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      )}
    </section>
  );
}

/** Pages of history read for the attempts: enough for any transaction's calls (100 events a page). */
const MAX_EVENT_PAGES = 10;

async function allEvents(id: string): Promise<HistoryEvent[]> {
  const events: HistoryEvent[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < MAX_EVENT_PAGES; page++) {
    const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
    const answer: ListPage<HistoryEvent> = await get(`/transactions/${id}/events?limit=100${query}`);
    events.push(...answer.items);
    cursor = answer.next_cursor;
    if (!cursor) break;
  }
  return events;
}

/** Each connector call of the transaction (authorize, capture, void, refund…) under the service it went to. */
export function Attempts(props: {
  id: string;
  currency: string;
  fallbackServiceId: string | null;
  scopes: Set<string>;
}): JSX.Element {
  const canListServices = hasScope(props.scopes, 'payment-services.read');
  const data = useAsync(async () => {
    const [events, services] = await Promise.all([
      allEvents(props.id),
      canListServices
        ? get<ListPage<{ id: string; display_name: string }>>('/payment-services?limit=100').catch(() => null)
        : Promise.resolve(null),
    ]);
    const names = new Map((services?.items ?? []).map((s) => [s.id, s.display_name]));
    return { groups: attemptsByService(events, props.fallbackServiceId), names };
  }, props.id);
  return (
    <section class="card" aria-labelledby="attempts-title">
      <h2 id="attempts-title">Attempts per payment service</h2>
      {data.error ? (
        <ErrorNotice error={data.error} />
      ) : !data.data ? (
        <Loading />
      ) : data.data.groups.length === 0 ? (
        <Empty>No payment service was called for this transaction.</Empty>
      ) : (
        data.data.groups.map((group) => {
          const name = group.paymentServiceId
            ? (data.data!.names.get(group.paymentServiceId) ?? group.paymentServiceId)
            : 'No payment service';
          return (
            <ScrollRegion label={`Attempts of ${name}`} key={group.paymentServiceId ?? 'none'}>
              <table>
                <caption>{name}</caption>
                <thead>
                  <tr>
                    <th scope="col">When</th>
                    <th scope="col">Operation</th>
                    <th scope="col" class="num">
                      Amount
                    </th>
                    <th scope="col">Outcome</th>
                    <th scope="col">Error</th>
                    <th scope="col" class="num">
                      Time
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {group.attempts.map((a) => (
                    <tr key={a.attemptId}>
                      <td>{dateTime(a.at)}</td>
                      <td>{label(a.operation)}</td>
                      <td class="num">{money(a.amount, props.currency)}</td>
                      <td>
                        <Status value={a.outcome} />
                      </td>
                      <td>{a.errorCode ?? '—'}</td>
                      <td class="num">{a.durationMs === null ? '—' : `${a.durationMs} ms`}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </ScrollRegion>
          );
        })
      )}
    </section>
  );
}

/** The routing decisions taken for the transaction (GET /transactions/{id}/actions). */
export function RoutingTrace({ id }: { id: string }): JSX.Element {
  const actions = useAsync(
    () => get<ListPage<RoutingAction> | { items: RoutingAction[] }>(`/transactions/${id}/actions`),
    id,
  );
  return (
    <section class="card" aria-labelledby="routing-title">
      <h2 id="routing-title">Routing decisions</h2>
      {actions.error ? (
        <ErrorNotice error={actions.error} />
      ) : !actions.data ? (
        <Loading />
      ) : actions.data.items.length === 0 ? (
        <Empty>No flow rule matched: the default routing applied.</Empty>
      ) : (
        <ul class="plain">
          {actions.data.items.map((a) => (
            <li key={`${a.id}-${a.rule_id}`}>
              {dateTime(a.created_at)} · {label(a.flow)} / {label(a.id)} · rule {a.rule_id}: {JSON.stringify(a.outcome)}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
