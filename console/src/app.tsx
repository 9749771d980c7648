import type { JSX } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { del, get, onUnauthorized, post, type ListPage } from './api.ts';
import { PAGES, matchPage, pageAllowed } from './pages.tsx';
import { SetupPage, SignInPage } from './pages/sign-in.tsx';
import { Link, navigate, useLocation } from './router.tsx';
import {
  accountsOf,
  chooseAccount,
  hasScope,
  loadSession,
  scopesIn,
  setSession,
  useSession,
  type DashboardUser,
} from './session.ts';
import { Empty, Loading } from './ui/components.tsx';

export function App(): JSX.Element {
  const { session, account } = useSession();
  const { path, query } = useLocation();
  useEffect(() => {
    onUnauthorized(() => setSession(null));
    void loadSession();
  }, []);
  if (path === '/setup') return <SetupPage token={query.get('token') ?? ''} />;
  if (session === undefined) return <Loading />;
  if (session?.stage !== 'active' || !session.user) return <SignInPage session={session} />;
  return <Shell user={session.user} account={account} path={path} />;
}

function Shell({ user, account, path }: { user: DashboardUser; account: string | null; path: string }): JSX.Element {
  const scopes = scopesIn(user, account);
  const may = (scope: string) => hasScope(scopes, scope);
  const visible = PAGES.filter((page) => page.nav && pageAllowed(page, may));
  const match = matchPage(path);
  const [menuOpen, setMenuOpen] = useState(false);
  const allowed = match !== null && pageAllowed(match.page, may);
  useEffect(() => setMenuOpen(false), [path]);
  // A role without the overview's scope lands on its first page instead.
  useEffect(() => {
    if (path === '/' && !allowed && visible[0]) navigate(visible[0].path, true);
  }, [path, allowed, visible[0]?.path]);
  useEffect(() => {
    if (match) document.title = `${match.page.title} · svc dashboard`;
  }, [match?.page.title]);
  return (
    <div class="shell">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <span class="brand">svc dashboard</span>
        <button
          type="button"
          class="secondary menu-toggle"
          aria-expanded={menuOpen}
          aria-controls="nav"
          onClick={() => setMenuOpen(!menuOpen)}
        >
          Menu
        </button>
        <AccountSwitcher user={user} account={account} canList={hasScope(scopes, 'merchant-accounts.read')} />
        <UserMenu user={user} path={path} />
      </header>
      <nav id="nav" class={menuOpen ? 'sidebar open' : 'sidebar'} aria-label="Pages">
        <ul>
          {visible.map((page) => (
            <li key={page.path}>
              <Link href={page.path} aria-current={match?.page === page ? 'page' : undefined}>
                {page.title}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" class="content" key={account ?? ''}>
        {!match ? (
          <Empty>There is no such page. Choose one in the menu.</Empty>
        ) : !allowed ? (
          <Empty>Your role does not allow this page in this merchant account.</Empty>
        ) : (
          match.page.render({ params: match.params, scopes, user })
        )}
      </main>
    </div>
  );
}

interface MerchantAccount {
  id: string;
  display_name: string;
}

/** The accounts the user may act on: every account (listed by the API) or the ones named by its roles. */
function AccountSwitcher({
  user,
  account,
  canList,
}: {
  user: DashboardUser;
  account: string | null;
  canList: boolean;
}): JSX.Element {
  const { named, everywhere } = accountsOf(user);
  const [listed, setListed] = useState<MerchantAccount[] | null>(null);
  useEffect(() => {
    if (!everywhere || !canList) return;
    get<ListPage<MerchantAccount>>('/merchant-accounts?limit=100').then(
      (page) => setListed(page.items),
      () => setListed(null),
    );
  }, [everywhere, canList]);
  const options = listed
    ? listed.map((a) => ({ id: a.id, name: a.display_name }))
    : [...new Set([...(everywhere ? ['default'] : []), ...named])].map((id) => ({ id, name: id }));
  if (account && !options.some((o) => o.id === account)) options.unshift({ id: account, name: account });
  return (
    <label class="account-switcher">
      <span class="visually-hidden">Merchant account</span>
      <select value={account ?? ''} onChange={(e) => chooseAccount(e.currentTarget.value)}>
        {options.map((o) => (
          <option value={o.id} key={o.id}>
            {o.name === o.id ? o.id : `${o.name} (${o.id})`}
          </option>
        ))}
      </select>
    </label>
  );
}

function UserMenu({ user, path }: { user: DashboardUser; path: string }): JSX.Element {
  const menu = useRef<HTMLDetailsElement>(null);
  // A link of the menu leads to another page: the menu closes behind it.
  useEffect(() => {
    if (menu.current) menu.current.open = false;
  }, [path]);
  const signOut = async (everywhere: boolean) => {
    try {
      if (everywhere) await post('/dashboard/api/session/sign-out-everywhere', undefined, { noAccount: true });
      else await del('/dashboard/api/session');
    } finally {
      setSession(null);
      navigate('/', true);
    }
  };
  return (
    <details class="user-menu" ref={menu}>
      <summary>{user.display_name || user.email}</summary>
      <div class="menu">
        <p class="muted">{user.email}</p>
        <Link href="/security">Sign-in security</Link>
        <button type="button" class="secondary" onClick={() => void signOut(false)}>
          Sign out
        </button>
        <button type="button" class="secondary" onClick={() => void signOut(true)}>
          Sign out everywhere
        </button>
      </div>
    </details>
  );
}
