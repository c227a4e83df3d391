import { useEffect, useState } from 'preact/hooks';
import type { Api, ThreadRow } from '../api.js';
import { number, when } from '../format.js';

export function ThreadList({ api }: { api: Api }) {
  const [prefix, setPrefix] = useState('');
  const [rows, setRows] = useState<ThreadRow[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);

  const load = async (from: string | null, replace: boolean) => {
    setLoading(true);
    try {
      const page = await api.listThreads({ prefix: prefix.trim(), cursor: from });
      setRows((previous) => (replace ? page.threads : [...previous, ...page.threads]));
      setCursor(page.nextCursor);
      setError(null);
    } catch (caught) {
      setError(String((caught as Error).message));
    } finally {
      setLoading(false);
    }
  };

  useEffect(() => {
    const timer = setTimeout(() => void load(null, true), 200);
    return () => clearTimeout(timer);
  }, [prefix]);

  return (
    <section aria-labelledby="threads-title">
      <h1 id="threads-title">Threads</h1>
      <label for="thread-search">Search by thread id (prefix)</label>
      <input
        id="thread-search"
        type="search"
        value={prefix}
        placeholder="e.g. support-"
        onInput={(event) => setPrefix((event.target as HTMLInputElement).value)}
      />
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <table class="threads" aria-busy={loading}>
        <caption class="visually-hidden">Threads of this tenant</caption>
        <thead>
          <tr>
            <th scope="col">Thread</th>
            <th scope="col">Model</th>
            <th scope="col">Window</th>
            <th scope="col">Tokens now / ceiling</th>
            <th scope="col">Plan</th>
            <th scope="col">Last compaction</th>
            <th scope="col">Auto</th>
            <th scope="col">Status</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.threadId} data-thread={row.threadId}>
              <td>
                <a href={`#/threads/${encodeURIComponent(row.threadId)}`}>{row.threadId}</a>
                {row.branchedFrom && <span class="muted"> ⑂ {row.branchedFrom.sourceThreadId}</span>}
              </td>
              <td>{row.model}</td>
              <td class="num">{number(row.contextWindow)}</td>
              <td class="num">
                <meter
                  min={0}
                  max={row.tokens.ceiling}
                  value={Math.min(row.tokens.now, row.tokens.ceiling)}
                  aria-hidden="true"
                />{' '}
                {number(row.tokens.now)} / {number(row.tokens.ceiling)}
              </td>
              <td class="num">v{row.planVersion}</td>
              <td>{when(row.lastCompaction?.at)}</td>
              <td>{row.autoCompact ? 'on' : 'off'}</td>
              <td>
                <span class={`status status-${row.status}`}>{row.status}</span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {!loading && rows.length === 0 && (
        <p class="muted">No threads{prefix ? ` starting with “${prefix}”` : ''}.</p>
      )}
      {cursor && (
        <button type="button" onClick={() => void load(cursor, false)} disabled={loading}>
          More threads
        </button>
      )}
    </section>
  );
}
