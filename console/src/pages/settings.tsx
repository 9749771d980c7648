import type { JSX } from 'preact';
import type { PageProps } from '../pages.tsx';
import { sessionState } from '../session.ts';
import { useCursorList } from '../ui/async.ts';
import { ListTable, PageHeader } from '../ui/components.tsx';
import { dateTime } from '../ui/format.ts';

interface MerchantAccount {
  id: string;
  display_name: string;
  created_at: string;
}
interface ThreeDsConfiguration {
  id: string;
  scheme: string;
  currency: string | null;
  merchant_name: string;
  merchant_acquirer_bin: string;
  created_at: string;
}

export function SettingsPage(_props: PageProps): JSX.Element {
  const account = sessionState().account ?? 'default';
  const accounts = useCursorList<MerchantAccount>('/merchant-accounts', {});
  const threeDs = useCursorList<ThreeDsConfiguration>(
    `/merchant-accounts/${encodeURIComponent(account)}/three-ds-configurations`,
    {},
  );
  return (
    <section>
      <PageHeader title="Settings" />
      <section class="card">
        <h2>Merchant accounts</h2>
        <ListTable
          list={accounts}
          caption="Merchant accounts"
          empty="No merchant account."
          rowKey={(a) => a.id}
          columns={[
            { title: 'Id', cell: (a) => <code>{a.id}</code> },
            { title: 'Name', cell: (a) => a.display_name },
            { title: 'Created', cell: (a) => dateTime(a.created_at) },
          ]}
        />
      </section>
      <section class="card">
        <h2>3-D Secure configurations of {account}</h2>
        <ListTable
          list={threeDs}
          caption="3-D Secure configurations"
          empty="No 3-D Secure configuration."
          rowKey={(c) => c.id}
          columns={[
            { title: 'Scheme', cell: (c) => c.scheme },
            { title: 'Currency', cell: (c) => c.currency ?? 'any' },
            { title: 'Merchant name', cell: (c) => c.merchant_name },
            { title: 'Acquirer BIN', cell: (c) => c.merchant_acquirer_bin },
            { title: 'Created', cell: (c) => dateTime(c.created_at) },
          ]}
        />
      </section>
    </section>
  );
}
