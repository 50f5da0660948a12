import { type FormEvent, useState } from 'react';
import type { ApiClient } from '../api/api-client';
import type { Session, Signups } from '../api/console.types';
import { Link } from '../router';
import { ErrorNotice } from '../ui/notice';
import { useTitle } from '../ui/use-title';

/**
 * Who may sign up, as the signed-out session answer says (docs/operating.md, Sign-up and
 * invitations).
 */
export interface SignupPolicy {
  signups: Signups;
  /** No account yet: a sign-up without an invitation creates the operator. */
  firstSignup: boolean;
}

/**
 * Sign in and sign up share one form. Sign-up is offered when the instance is open, when it
 * has no account yet (the first becomes the operator), or to the holder of an invitation link;
 * otherwise the page says sign-ups are by invitation only.
 */
export function AuthPage({
  api,
  mode,
  policy,
  invitation,
  onSignedIn,
}: {
  api: ApiClient;
  mode: 'signin' | 'signup';
  policy: SignupPolicy;
  /** The token of the invitation link this page was opened with, if any. */
  invitation: string | null;
  onSignedIn(session: Session): void;
}) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const signingUp = mode === 'signup';
  const signupOffered = policy.signups === 'open' || policy.firstSignup;
  useTitle(signingUp ? 'Create account' : 'Sign in');

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const session = signingUp
        ? await api.post<Session>('/v1/auth/signup', {
            email,
            password,
            ...(invitation ? { invitation } : {}),
          })
        : await api.post<Session>('/v1/auth/signin', { email, password });
      onSignedIn(session);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  }

  return (
    <main className="auth" id="main">
      <div className="auth-card">
        <div className="auth-brand">
          <span className="brand-mark" aria-hidden="true" />
          <span>Debrief</span>
        </div>
        <h1>{signingUp ? 'Create your account' : 'Sign in'}</h1>
        <p className="muted">
          {signingUp
            ? 'Hear what AI agents say about your tools, live.'
            : 'Welcome back. Your agents have been talking.'}
        </p>
        {signingUp && invitation && (
          <p className="notice notice-info" data-testid="invitation-notice">
            You were invited to this Debrief instance. The link admits one account.
          </p>
        )}
        {signingUp && !invitation && policy.firstSignup && (
          <p className="notice notice-info">
            This is the first account of this instance: it becomes the operator, who can invite
            others.
          </p>
        )}
        <form onSubmit={submit} className="form" noValidate={false}>
          <label className="field">
            <span>Email</span>
            <input
              type="email"
              name="email"
              autoComplete="email"
              required
              value={email}
              onChange={(event) => setEmail(event.target.value)}
            />
          </label>
          <label className="field">
            <span>Password</span>
            <input
              type="password"
              name="password"
              autoComplete={signingUp ? 'new-password' : 'current-password'}
              required
              minLength={signingUp ? 8 : undefined}
              value={password}
              onChange={(event) => setPassword(event.target.value)}
              aria-describedby={signingUp ? 'password-hint' : undefined}
            />
            {signingUp && (
              <small id="password-hint" className="muted">
                At least 8 characters.
              </small>
            )}
          </label>
          <ErrorNotice error={error} />
          <button type="submit" className="button button-primary button-block" disabled={busy}>
            {busy ? 'One moment…' : signingUp ? 'Create account' : 'Sign in'}
          </button>
        </form>
        {signingUp ? (
          <p className="auth-switch">
            Already have an account? <Link to="/signin">Sign in</Link>
          </p>
        ) : signupOffered ? (
          <p className="auth-switch">
            New here? <Link to="/signup">Create an account</Link>
          </p>
        ) : (
          <p className="auth-switch muted">
            Sign-ups are by invitation only on this instance: ask its operator for an invitation
            link.
          </p>
        )}
      </div>
    </main>
  );
}
