import type { JSX } from 'preact';
import type { DashboardUser } from './session.ts';
import { ApiKeysPage } from './pages/api-keys.tsx';
import { AuditLogPage } from './pages/audit-log.tsx';
import { BuyerPage, BuyersPage } from './pages/buyers.tsx';
import { MonitoringPage } from './pages/monitoring.tsx';
import { OverviewPage } from './pages/overview.tsx';
import { PaymentServicePage } from './pages/payment-service.tsx';
import { ConnectPaymentServicePage, PaymentServicesPage } from './pages/payment-services.tsx';
import { PaymentLinksPage } from './pages/lists.tsx';
import { PayoutPage, PayoutsPage } from './pages/payouts.tsx';
import { WebhooksPage } from './pages/webhooks.tsx';
import { ReportsPage } from './pages/reports.tsx';
import { SecurityPage } from './pages/security.tsx';
import { RoutingPage } from './pages/routing.tsx';
import { SettingsPage } from './pages/settings.tsx';
import { TransactionPage } from './pages/transaction.tsx';
import { TransactionsPage } from './pages/transactions.tsx';
import { UserPage } from './pages/user.tsx';
import { UsersPage } from './pages/users.tsx';

export interface PageProps {
  params: Record<string, string>;
  /** The user's scopes in the merchant account being viewed: a control it may not use is not shown. */
  scopes: Set<string>;
  user: DashboardUser;
}

export interface PageDef {
  /** The path, with `:name` parts. */
  path: string;
  title: string;
  /** The scope its main read needs: the page is in the menu only with it; null: the user's own page, for everyone. */
  scope: string | null;
  nav: boolean;
  render: (props: PageProps) => JSX.Element;
}

export const PAGES: PageDef[] = [
  { path: '/', title: 'Overview', scope: 'metrics-explorer.read', nav: true, render: (p) => <OverviewPage {...p} /> },
  {
    path: '/transactions',
    title: 'Transactions',
    scope: 'transactions.read',
    nav: true,
    render: (p) => <TransactionsPage {...p} />,
  },
  {
    path: '/transactions/:id',
    title: 'Transaction',
    scope: 'transactions.read',
    nav: false,
    render: (p) => <TransactionPage {...p} />,
  },
  { path: '/buyers', title: 'Buyers', scope: 'buyers.read', nav: true, render: (p) => <BuyersPage {...p} /> },
  { path: '/buyers/:id', title: 'Buyer', scope: 'buyers.read', nav: false, render: (p) => <BuyerPage {...p} /> },
  {
    path: '/payment-services',
    title: 'Payment services',
    scope: 'payment-services.read',
    nav: true,
    render: (p) => <PaymentServicesPage {...p} />,
  },
  {
    path: '/payment-services/:id',
    title: 'Payment service',
    scope: 'payment-services.read',
    nav: false,
    render: (p) => <PaymentServicePage {...p} />,
  },
  {
    path: '/payment-services/connect/:definition',
    title: 'Connect a payment service',
    scope: 'payment-services.write',
    nav: false,
    render: (p) => <ConnectPaymentServicePage {...p} />,
  },
  { path: '/routing', title: 'Routing', scope: 'flows.read', nav: true, render: (p) => <RoutingPage {...p} /> },
  {
    path: '/payment-links',
    title: 'Payment links',
    scope: 'payment-links.read',
    nav: true,
    render: (p) => <PaymentLinksPage {...p} />,
  },
  { path: '/payouts', title: 'Payouts', scope: 'payouts.read', nav: true, render: (p) => <PayoutsPage {...p} /> },
  { path: '/payouts/:id', title: 'Payout', scope: 'payouts.read', nav: false, render: (p) => <PayoutPage {...p} /> },
  { path: '/reports', title: 'Reports', scope: 'reports.read', nav: true, render: (p) => <ReportsPage {...p} /> },
  {
    path: '/webhooks',
    title: 'Webhooks',
    scope: 'webhook-subscriptions.read',
    nav: true,
    render: (p) => <WebhooksPage {...p} />,
  },
  {
    path: '/monitoring',
    title: 'Monitoring',
    scope: 'monitoring.read',
    nav: true,
    render: (p) => <MonitoringPage {...p} />,
  },
  {
    path: '/audit-log',
    title: 'Audit log',
    scope: 'audit-logs.read',
    nav: true,
    render: (p) => <AuditLogPage {...p} />,
  },
  {
    path: '/api-keys',
    title: 'API keys',
    scope: 'api-key-pairs.read',
    nav: true,
    render: (p) => <ApiKeysPage {...p} />,
  },
  { path: '/users', title: 'Users and roles', scope: 'roles.read', nav: true, render: (p) => <UsersPage {...p} /> },
  { path: '/users/:id', title: 'User', scope: 'users.read', nav: false, render: (p) => <UserPage {...p} /> },
  {
    path: '/settings',
    title: 'Settings',
    scope: 'merchant-accounts.read',
    nav: true,
    render: (p) => <SettingsPage {...p} />,
  },
  { path: '/security', title: 'Sign-in security', scope: null, nav: false, render: (p) => <SecurityPage {...p} /> },
];

/** Whether the user's scopes in the account being viewed allow a page. */
export const pageAllowed = (page: PageDef, allowed: (scope: string) => boolean): boolean =>
  page.scope === null || allowed(page.scope);

/** The page of a path and its `:name` parts, or null. */
export function matchPage(path: string): { page: PageDef; params: Record<string, string> } | null {
  const parts = path.split('/').filter(Boolean);
  for (const page of PAGES) {
    const pattern = page.path.split('/').filter(Boolean);
    if (pattern.length !== parts.length) continue;
    const params: Record<string, string> = {};
    const matches = pattern.every((p, i) => {
      if (p.startsWith(':')) return (params[p.slice(1)] = decodeURIComponent(parts[i]!)) !== '';
      return p === parts[i];
    });
    if (matches) return { page, params };
  }
  return null;
}
