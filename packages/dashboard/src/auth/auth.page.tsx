import { type FormEvent, useState } from 'react';
import type { ApiClient } from '../api/api-client';
import type { Session, Signups } from '../api/console.types';
import { Link } from '../router';
import { ErrorNotice } from '../ui/notice';
import { useTitle } from '../ui/use-title';

/** Sign in and sign up share one form; sign-up disappears when the instance closed it. */
export function AuthPage({
  api,
  mode,
  signups,
  onSignedIn,
}: {
  api: ApiClient;
  mode: 'signin' | 'signup';
  signups: Signups;
  onSignedIn(session: Session): void;
}) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const signingUp = mode === 'signup';
  useTitle(signingUp ? 'Create account' : 'Sign in');

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const session = await api.post<Session>(signingUp ? '/v1/auth/signup' : '/v1/auth/signin', {
        email,
        password,
      });
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
        {signups === 'open' ? (
          <p className="auth-switch">
            {signingUp ? (
              <>
                Already have an account? <Link to="/signin">Sign in</Link>
              </>
            ) : (
              <>
                New here? <Link to="/signup">Create an account</Link>
              </>
            )}
          </p>
        ) : (
          <p className="auth-switch muted">
            Sign-ups are closed on this instance; ask its operator for an account.
          </p>
        )}
      </div>
    </main>
  );
}
