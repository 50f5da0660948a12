import { Link, useLocation } from '../router';
import { useSession } from '../session-context';
import { UsageMeter } from './usage';

export function AppHeader() {
  const { session, signOut } = useSession();
  const { path } = useLocation();
  const current = (active: boolean) => (active ? 'page' : undefined);
  return (
    <header className="app-header">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <div className="app-header-inner">
        <Link to="/" className="brand" aria-label="Debrief, your projects">
          <span className="brand-mark" aria-hidden="true" />
          Debrief
        </Link>
        <nav className="app-nav" aria-label="Main">
          <Link to="/" aria-current={current(path === '/' || path.startsWith('/projects'))}>
            Projects
          </Link>
          <Link to="/api-keys" aria-current={current(path === '/api-keys')}>
            API keys
          </Link>
          {session.account.operator && (
            <Link to="/invitations" aria-current={current(path === '/invitations')}>
              Invitations
            </Link>
          )}
        </nav>
        <div className="app-header-end">
          <UsageMeter usage={session.usage} />
          <span className="account-email" title={session.account.email}>
            {session.account.email}
          </span>
          <button type="button" className="button button-small button-ghost" onClick={signOut}>
            Sign out
          </button>
        </div>
      </div>
    </header>
  );
}
