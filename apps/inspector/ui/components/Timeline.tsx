import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { Api, Plan, ThreadRow } from '../api.js';
import type { MessagePart, StoredEvent } from '../api-types.js';
import { number } from '../format.js';
import { planActions } from '../plan-actions.js';

interface Row {
  seq: number;
  id: string;
  role: string;
  tokens: number;
  parts: MessagePart[];
}

const PAGE = 1_000;
const ACTION_LABEL = {
  include: 'included',
  summarize: 'summarized',
  abridge: 'abridged',
  clear: 'cleared',
  externalize: 'externalized',
  drop: 'dropped',
} as const;
const LARGE = 600;

function rowsOf(events: StoredEvent[]): Row[] {
  return events.flatMap((event) =>
    event.type === 'message.appended' && event.message
      ? [
          {
            seq: event.seq,
            id: event.message.id,
            role: event.message.role,
            tokens: event.tokens ?? 0,
            parts:
              typeof event.message.content === 'string'
                ? [{ type: 'text', text: event.message.content }]
                : event.message.content,
          },
        ]
      : [],
  );
}

function partText(part: MessagePart): string {
  if (part.type === 'text' || part.type === 'reasoning') return part.text ?? '';
  if (part.type === 'tool_call') return `${part.name}(${JSON.stringify(part.input)})`;
  if (part.type === 'tool_result')
    return typeof part.content === 'string' ? part.content : JSON.stringify(part.content);
  return JSON.stringify(part);
}

/**
 * The log, one row per message, virtualized (only the rows in view are in the DOM) and read from
 * the API a page at a time as the reader scrolls: a 10,000-message thread stays smooth.
 */
export function Timeline(props: {
  api: Api;
  threadId: string;
  plan: Plan | null;
  branches: ThreadRow[];
  generation: number;
  onChanged: () => void;
}) {
  const { api, threadId } = props;
  const [rows, setRows] = useState<Row[]>([]);
  const [nextSeq, setNextSeq] = useState<number | null>(1);
  const [loading, setLoading] = useState(false);
  const [status, setStatus] = useState<string | null>(null);
  const scroller = useRef<HTMLElement>(null);
  const actionOf = useMemo(() => planActions(props.plan), [props.plan]);
  const branchesAt = useMemo(() => {
    const at = new Map<string, string[]>();
    for (const branch of props.branches) {
      const from = branch.branchedFrom?.fromMessageId;
      if (from) at.set(from, [...(at.get(from) ?? []), branch.threadId]);
    }
    return at;
  }, [props.branches]);

  const pairs = useMemo(() => {
    const where = new Map<string, { call?: string; result?: string }>();
    for (const row of rows) {
      for (const part of row.parts) {
        if (part.type === 'tool_call' && part.id) where.set(part.id, { ...where.get(part.id), call: row.id });
        if (part.type === 'tool_result' && part.toolCallId)
          where.set(part.toolCallId, { ...where.get(part.toolCallId), result: row.id });
      }
    }
    return where;
  }, [rows]);

  // A new generation (compaction, branch) re-reads from the start.
  useEffect(() => {
    setRows([]);
    setNextSeq(1);
  }, [threadId, props.generation]);

  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => 64,
    overscan: 8,
  });
  const items = virtualizer.getVirtualItems();
  const lastIndex = items.at(-1)?.index ?? 0;

  useEffect(() => {
    if (loading || nextSeq === null || (rows.length > 0 && lastIndex < rows.length - 50)) return;
    setLoading(true);
    api
      .readEvents(threadId, nextSeq, PAGE)
      .then((page) => {
        setRows((previous) => [...previous, ...rowsOf(page.events)]);
        setNextSeq(page.nextSeq);
      })
      .catch((caught: Error) => setStatus(caught.message))
      .finally(() => setLoading(false));
  }, [api, threadId, nextSeq, lastIndex, rows.length, loading]);

  const branchAt = async (messageId: string) => {
    try {
      const branch = await api.branch(threadId, messageId);
      window.location.hash = `#/threads/${encodeURIComponent(branch.threadId)}`;
    } catch (caught) {
      setStatus((caught as Error).message);
    }
  };

  return (
    <section class="card" aria-labelledby="timeline-title">
      <h2 id="timeline-title">Timeline</h2>
      <p class="muted" aria-live="polite">
        <span data-testid="timeline-count">{rows.length}</span> messages loaded
        {nextSeq !== null ? ' (more load as you scroll)' : ''}
        {status ? ` · ${status}` : ''}
      </p>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus to scroll from the keyboard */}
      <section ref={scroller} class="timeline" tabIndex={0} aria-label="Messages of the thread">
        <ul class="bare" style={{ height: `${virtualizer.getTotalSize()}px`, position: 'relative' }}>
          {items.map((item) => {
            const row = rows[item.index]!;
            const action = actionOf(row.id);
            const text = row.parts.map(partText).join('\n');
            return (
              <li
                key={row.id}
                class={`message action-${action}`}
                data-index={item.index}
                data-message={row.id}
                ref={virtualizer.measureElement}
                style={{
                  position: 'absolute',
                  top: 0,
                  left: 0,
                  width: '100%',
                  transform: `translateY(${item.start}px)`,
                }}
              >
                <div class="message-head">
                  <span class={`role role-${row.role}`}>{row.role}</span>
                  <code>{row.id}</code>
                  <span class="num">{number(row.tokens)} tok</span>
                  <span class={`badge badge-${action}`}>{ACTION_LABEL[action]}</span>
                  {row.parts.map((part) => {
                    const pair =
                      part.type === 'tool_call'
                        ? pairs.get(part.id ?? '')
                        : part.type === 'tool_result'
                          ? pairs.get(part.toolCallId ?? '')
                          : undefined;
                    if (!pair) return null;
                    const other = part.type === 'tool_call' ? pair.result : pair.call;
                    return (
                      <span class="muted" key={`${part.type}-${part.id ?? part.toolCallId}`}>
                        {part.type === 'tool_call'
                          ? `→ result in ${other ?? '(none yet)'}`
                          : `← call in ${other ?? '(unknown)'}`}
                      </span>
                    );
                  })}
                  {branchesAt.get(row.id)?.map((branchId) => (
                    <a key={branchId} href={`#/threads/${encodeURIComponent(branchId)}`}>
                      ⑂ {branchId}
                    </a>
                  ))}
                  <button
                    type="button"
                    class="link"
                    onClick={() => void branchAt(row.id)}
                    aria-label={`Branch at ${row.id}`}
                  >
                    Branch here
                  </button>
                </div>
                {text.length > LARGE ? (
                  <details>
                    <summary>
                      {text.slice(0, 160)}… ({number(text.length)} characters)
                    </summary>
                    <pre>{text}</pre>
                  </details>
                ) : (
                  <pre>{text}</pre>
                )}
              </li>
            );
          })}
        </ul>
      </section>
    </section>
  );
}
