import { useEffect, useMemo, useState } from 'preact/hooks';
import { createApi } from '../api.js';
import { forgetKey, storedKey, storeKey } from '../session.js';
import { SignIn } from './SignIn.js';
import { ThreadList } from './ThreadList.js';
import { ThreadView } from './ThreadView.js';

function threadFromHash(): string | null {
  const match = /^#\/threads\/(.+)$/.exec(window.location.hash);
  return match ? decodeURIComponent(match[1]!) : null;
}

export function App() {
  const [apiKey, setApiKey] = useState<string | null>(storedKey());
  const [threadId, setThreadId] = useState<string | null>(threadFromHash());
  const api = useMemo(() => (apiKey ? createApi(apiKey) : null), [apiKey]);

  useEffect(() => {
    const onHash = () => setThreadId(threadFromHash());
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);

  const signOut = () => {
    forgetKey();
    setApiKey(null);
    window.location.hash = '';
  };

  return (
    <>
      <header class="top">
        <a class="brand" href="#/">
          Compactor inspector
        </a>
        {api && (
          <button type="button" class="link" onClick={signOut}>
            Sign out
          </button>
        )}
      </header>
      <main id="main">
        {!api ? (
          <SignIn
            onSignedIn={(key) => {
              storeKey(key);
              setApiKey(key);
            }}
          />
        ) : threadId ? (
          <ThreadView api={api} threadId={threadId} />
        ) : (
          <ThreadList api={api} />
        )}
      </main>
    </>
  );
}
