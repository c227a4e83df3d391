import { fetchEventSource } from '@microsoft/fetch-event-source';
import { useEffect, useState } from 'preact/hooks';
import type { Api, IndexedLifecycleEvent } from '../api.js';
import { number, when } from '../format.js';

const KEEP = 500;

/**
 * The thread's lifecycle events: the last page, then live over server-sent events. The stream is
 * read with fetch (EventSource cannot send the Authorization header); it resumes after the last id.
 */
export function LifecycleFeed(props: { api: Api; threadId: string; onCompaction: () => void }) {
  const { api, threadId, onCompaction } = props;
  const [events, setEvents] = useState<IndexedLifecycleEvent[]>([]);
  const [state, setState] = useState('connecting');

  useEffect(() => {
    const controller = new AbortController();
    setEvents([]);
    (async () => {
      const first = await api.lifecycle(threadId, 1);
      const fromIndex = Math.max(1, first.total - KEEP + 1);
      const recent = fromIndex === 1 ? first : await api.lifecycle(threadId, fromIndex);
      setEvents(recent.events.slice(-KEEP));
      await fetchEventSource(
        `/v1/threads/${encodeURIComponent(threadId)}/lifecycle/stream?fromIndex=${recent.total + 1}`,
        {
          headers: { authorization: `Bearer ${api.apiKey}` },
          signal: controller.signal,
          openWhenHidden: true,
          onopen: async (response) => {
            setState(response.ok ? 'live' : `error ${response.status}`);
            if (!response.ok) throw new Error(`stream refused: ${response.status}`);
          },
          onmessage: (message) => {
            if (message.event !== 'lifecycle') return;
            const event = JSON.parse(message.data) as IndexedLifecycleEvent;
            setEvents((previous) =>
              previous.some((known) => known.index === event.index)
                ? previous
                : [...previous, event].slice(-KEEP),
            );
            if (event.name === 'compaction_completed') onCompaction();
          },
          onerror: (error) => {
            setState('reconnecting');
            if (controller.signal.aborted) throw error;
          },
        },
      );
    })().catch((error: Error) => !controller.signal.aborted && setState(error.message));
    return () => controller.abort();
  }, [api, threadId, onCompaction]);

  return (
    <section class="card" aria-labelledby="lifecycle-title">
      <h2 id="lifecycle-title">
        Lifecycle events{' '}
        <span class={`live live-${state === 'live' ? 'on' : 'off'}`} data-testid="stream-state">
          {state}
        </span>
      </h2>
      <ol class="lifecycle" aria-live="polite">
        {[...events].reverse().map((event) => (
          <li
            key={event.index}
            data-event={event.name}
            data-index={event.index}
            class={`event-${event.name}`}
          >
            <strong>{event.name.replace('compaction_', '')}</strong>{' '}
            <span class="muted">
              #{event.index} {when(event.at)}
            </span>
            {event.tokensBefore !== undefined && event.tokensAfter !== undefined && (
              <div>
                {number(event.tokensBefore)} → {number(event.tokensAfter)} tokens
              </div>
            )}
            {event.strategy && <div>strategy: {event.strategy}</div>}
            {event.details && Object.keys(event.details).length > 0 && (
              <details>
                <summary>details</summary>
                <pre>{JSON.stringify(event.details, null, 2)}</pre>
              </details>
            )}
          </li>
        ))}
      </ol>
    </section>
  );
}
