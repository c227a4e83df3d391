import { useState } from 'preact/hooks';
import { ApiError, createApi } from '../api.js';

/** Checks the key against the API before keeping it (session storage only). */
export function SignIn({ onSignedIn }: { onSignedIn: (apiKey: string) => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await createApi(key.trim()).listThreads({ limit: 1 });
      onSignedIn(key.trim());
    } catch (caught) {
      setError(caught instanceof ApiError ? caught.message : String(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="card sign-in" onSubmit={submit} aria-labelledby="sign-in-title">
      <h1 id="sign-in-title">Sign in</h1>
      <p>Use an API key of your tenant. It is kept in this tab's session storage only.</p>
      <label for="api-key">API key</label>
      <input
        id="api-key"
        type="password"
        autocomplete="off"
        required
        value={key}
        onInput={(event) => setKey((event.target as HTMLInputElement).value)}
      />
      <button type="submit" disabled={busy || key.trim() === ''}>
        {busy ? 'Checking…' : 'Sign in'}
      </button>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </form>
  );
}
