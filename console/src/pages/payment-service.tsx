import type { JSX } from 'preact';
import { get } from '../api.ts';
import type { PageProps } from '../pages.tsx';
import { Link } from '../router.tsx';
import { hasScope } from '../session.ts';
import { useAsync } from '../ui/async.ts';
import { ErrorNotice, Loading, PageHeader, Status } from '../ui/components.tsx';
import { dateTime } from '../ui/format.ts';
import { FeeSchedulePanel } from './fee-schedule-panel.tsx';
import type { PaymentService } from './types.ts';

/** One payment service: what it accepts, and its fee schedule (edited with payment-services.write). */
export function PaymentServicePage({ params, scopes }: PageProps): JSX.Element {
  const id = params.id!;
  const service = useAsync(() => get<PaymentService>(`/payment-services/${encodeURIComponent(id)}`), id);
  const back = (
    <p>
      <Link href="/payment-services">← Payment services</Link>
    </p>
  );
  if (service.error)
    return (
      <section>
        {back}
        <PageHeader title="Payment service" />
        <ErrorNotice error={service.error} />
      </section>
    );
  if (!service.data) return <Loading />;
  const s = service.data;
  return (
    <section>
      {back}
      <PageHeader title={s.display_name} />
      <dl class="summary">
        <div>
          <dt>Provider</dt>
          <dd>{s.payment_service_definition_id}</dd>
        </div>
        <div>
          <dt>Method</dt>
          <dd>{s.method}</dd>
        </div>
        <div>
          <dt>State</dt>
          <dd>
            <Status value={s.active ? 'active' : 'disabled'} />
          </dd>
        </div>
        <div>
          <dt>Currencies</dt>
          <dd>{s.accepted_currencies.join(', ') || '—'}</dd>
        </div>
        <div>
          <dt>Countries</dt>
          <dd>{s.accepted_countries.join(', ') || '—'}</dd>
        </div>
        <div>
          <dt>Connected</dt>
          <dd>{dateTime(s.created_at)}</dd>
        </div>
        <div>
          <dt>Id</dt>
          <dd class="mono">{s.id}</dd>
        </div>
      </dl>
      <FeeSchedulePanel serviceId={s.id} canWrite={hasScope(scopes, 'payment-services.write')} />
    </section>
  );
}
