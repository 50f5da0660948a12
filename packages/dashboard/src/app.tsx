import { useCallback, useEffect, useMemo, useState } from 'react';
import { type ApiClient, ApiFailure } from './api/api-client';
import type { Session } from './api/console.types';
import { AuthPage, type SignupPolicy } from './auth/auth.page';
import { GroupingRulesPage } from './grouping-rules/grouping-rules.page';
import { IntegratePage } from './integrate/integrate.page';
import { InvitationsPage } from './invitations/invitations.page';
import { IssuePage } from './issues/issue.page';
import { IssuesPage } from './issues/issues.page';
import { ApiKeysPage } from './keys/api-keys.page';
import { ProjectKeysPage } from './keys/project-keys.page';
import { NotificationsPage } from './notifications/notifications.page';
import { ProjectLayout } from './projects/project-layout';
import { ProjectsPage } from './projects/projects.page';
import { ReportsPage } from './reports/reports.page';
import { navigate, useLocation } from './router';
import { SessionContext, type SessionState } from './session-context';
import { AppHeader } from './ui/app-header';
import { Loading } from './ui/notice';
import { UsageNotice } from './ui/usage';

type SessionLoad =
  | { state: 'loading' }
  | { state: 'signed-out'; policy: SignupPolicy }
  | { state: 'signed-in'; session: Session };

function policyOf(body: Record<string, unknown>): SignupPolicy {
  const signups = body.signups === 'open' || body.signups === 'closed' ? body.signups : 'invite';
  return { signups, firstSignup: body.first_signup === true };
}

export function App({ api }: { api: ApiClient }) {
  const [load, setLoad] = useState<SessionLoad>({ state: 'loading' });
  const location = useLocation();

  const applySession = useCallback(
    (session: Session) => {
      api.setCsrfToken(session.csrf_token);
      setLoad({ state: 'signed-in', session });
    },
    [api],
  );

  const fetchSession = useCallback(async () => {
    try {
      applySession(await api.get<Session>('/v1/auth/session'));
    } catch (error) {
      if (error instanceof ApiFailure && error.status === 401) {
        api.setCsrfToken(null);
        setLoad({ state: 'signed-out', policy: policyOf(error.body) });
      } else {
        // The server is unreachable: retry shortly rather than showing a sign-in form.
        window.setTimeout(fetchSession, 3000);
      }
    }
  }, [api, applySession]);

  useEffect(() => {
    void fetchSession();
    // The session ended elsewhere (expired, signed out in another tab): ask again, which also
    // learns whether sign-ups are open.
    return api.onSignedOut(() => void fetchSession());
  }, [api, fetchSession]);

  const signedIn = load.state === 'signed-in';
  // Usage moves as agents report: refresh it on every navigation.
  // biome-ignore lint/correctness/useExhaustiveDependencies: location.path is the trigger
  useEffect(() => {
    if (signedIn) void fetchSession();
  }, [location.path]);

  const sessionState = useMemo<SessionState | null>(() => {
    if (load.state !== 'signed-in') return null;
    return {
      api,
      session: load.session,
      refreshSession: () => void fetchSession(),
      async signOut() {
        try {
          await api.post('/v1/auth/signout');
        } finally {
          api.setCsrfToken(null);
          setLoad({
            state: 'signed-out',
            policy: { signups: load.session.signups, firstSignup: false },
          });
          navigate('/signin');
        }
      },
    };
  }, [api, load, fetchSession]);

  if (load.state === 'loading') {
    return (
      <main className="page page-center">
        <Loading />
      </main>
    );
  }

  if (load.state === 'signed-out' || !sessionState) {
    const policy: SignupPolicy =
      load.state === 'signed-out' ? load.policy : { signups: 'invite', firstSignup: false };
    // An invitation link (`/signup?invite=<token>`) opens sign-up whatever the policy; the
    // server checks the token.
    const invitation = location.path === '/signup' ? location.query.get('invite') : null;
    const canSignUp = policy.signups === 'open' || policy.firstSignup || invitation !== null;
    // A fresh instance has no account to sign in to: it opens on the first sign-up (an
    // explicit /signin still signs in).
    const offersSignup =
      location.path === '/signup' || (policy.firstSignup && location.path !== '/signin');
    const mode = offersSignup && canSignUp ? 'signup' : 'signin';
    return (
      <AuthPage
        api={api}
        mode={mode}
        policy={policy}
        invitation={invitation}
        onSignedIn={applySession}
      />
    );
  }

  return (
    <SessionContext.Provider value={sessionState}>
      <AppHeader />
      <UsageNotice usage={sessionState.session.usage} />
      <main className="page" id="main">
        <Routes path={location.path} />
      </main>
    </SessionContext.Provider>
  );
}

function Redirect({ to }: { to: string }) {
  useEffect(() => navigate(to, { replace: true }), [to]);
  return null;
}

function Routes({ path }: { path: string }) {
  if (path === '/signin' || path === '/signup') return <Redirect to="/" />;
  if (path === '/' || path === '/projects') return <ProjectsPage />;
  if (path === '/api-keys') return <ApiKeysPage />;
  if (path === '/invitations') return <InvitationsPage />;
  // A project's front page is its Issues view; the flat reports list is one tab away.
  const match =
    /^\/projects\/([0-9a-f]{32})(?:\/(reports|integrate|keys|rules|notifications|issues\/([0-9a-f]{32})))?\/?$/.exec(
      path,
    );
  if (match) {
    const projectId = match[1]!;
    const issueId = match[3];
    const tab = issueId ? 'issues' : (match[2] ?? 'issues');
    return (
      // Keyed by project: switching projects starts clean, never showing the last one's data.
      <ProjectLayout key={projectId} projectId={projectId} tab={tab}>
        {(project) =>
          tab === 'integrate' ? (
            <IntegratePage project={project} />
          ) : tab === 'keys' ? (
            <ProjectKeysPage project={project} />
          ) : tab === 'rules' ? (
            <GroupingRulesPage project={project} />
          ) : tab === 'notifications' ? (
            <NotificationsPage project={project} />
          ) : tab === 'reports' ? (
            <ReportsPage project={project} />
          ) : issueId ? (
            // Keyed by issue: a merge that navigates to the target starts clean.
            <IssuePage key={issueId} project={project} issueId={issueId} />
          ) : (
            <IssuesPage project={project} />
          )
        }
      </ProjectLayout>
    );
  }
  return (
    <section className="empty">
      <h1>Page not found</h1>
      <p>
        Nothing lives at <code>{path}</code>. <a href="/">Go to your projects</a>.
      </p>
    </section>
  );
}
