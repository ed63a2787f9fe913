import { type FormEvent, useState } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { formFields } from '../components/form/fields';
import { session } from '../rpc';

const { Field } = formFields<{ email: string; password: string }>('login');

export function LoginPage() {
  const navigate = useNavigate();
  const state = (useLocation().state ?? {}) as { from?: string; expired?: boolean };
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setBusy(true);
    setError(null);
    try {
      await session.login(String(form.get('email')), String(form.get('password')));
      void navigate(state.from && state.from !== '/login' ? state.from : '/', { replace: true });
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="login" id="main">
      <form onSubmit={(e) => void submit(e)} aria-labelledby="login-title">
        <h1 id="login-title">Log in to Spanlog</h1>
        {state.expired && <p role="status">Your session has expired. Please log in again.</p>}
        <Field name="email" label="E-mail" type="email" autoComplete="username" required autoFocus />
        <Field name="password" label="Password" type="password" autoComplete="current-password" required />
        {error && (
          <p role="alert" className="error">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          {busy ? 'Logging in…' : 'Log in'}
        </button>
      </form>
    </main>
  );
}
