import { useEffect, useState } from 'preact/hooks';
import { type Api, ApiError, type ArtifactMetadata, type Plan } from '../api.js';
import { when } from '../format.js';

interface Loaded {
  metadata?: ArtifactMetadata;
  content?: string;
  refused?: string;
}

/** Externalized spans: sensitivity and expiry; content only where this key may read it. */
export function Artifacts({ api, plan }: { api: Api; plan: Plan | null }) {
  const records = plan?.externalizations ?? [];
  const [loaded, setLoaded] = useState<Record<string, Loaded>>({});

  useEffect(() => {
    let live = true;
    for (const record of records) {
      api
        .artifact(record.artifactId)
        .then((artifact) => ({ metadata: artifact.metadata, content: artifact.content }))
        .catch((caught: unknown) => ({
          refused:
            caught instanceof ApiError && caught.status === 403
              ? `this key may not read ${record.sensitivity} artifacts`
              : String((caught as Error).message),
        }))
        .then(
          (result: Loaded) => live && setLoaded((previous) => ({ ...previous, [record.artifactId]: result })),
        );
    }
    return () => {
      live = false;
    };
  }, [api, plan]);

  return (
    <section class="card" aria-labelledby="artifacts-title">
      <h2 id="artifacts-title">Artifacts</h2>
      {records.length === 0 && <p class="muted">Nothing is externalized.</p>}
      <ul class="plain">
        {records.map((record) => {
          const item = loaded[record.artifactId];
          return (
            <li key={record.artifactId} data-artifact={record.artifactId}>
              <code>{record.artifactId.slice(0, 16)}…</code>{' '}
              <span class={`badge sensitivity-${record.sensitivity}`}>{record.sensitivity}</span> expires{' '}
              {when(item?.metadata?.expiresAt) === '—' ? 'never' : when(item?.metadata?.expiresAt)} ·{' '}
              {record.span.messageIds.length} messages
              {item?.refused && <p class="muted">Content withheld: {item.refused}.</p>}
              {item?.content !== undefined && (
                <details>
                  <summary>Content ({item.content.length} characters)</summary>
                  <pre>{item.content}</pre>
                </details>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
