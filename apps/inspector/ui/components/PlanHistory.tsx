import { useState } from 'preact/hooks';
import type { Api, PlanDiff, PlanVersionSummary, ThreadRow } from '../api.js';
import { number, when } from '../format.js';

/** Every plan version, newest first; opening one shows which spans changed action against the one before. */
export function PlanHistory(props: {
  api: Api;
  threadId: string;
  history: PlanVersionSummary[];
  branches: ThreadRow[];
}) {
  const [open, setOpen] = useState<number | null>(null);
  const [diff, setDiff] = useState<PlanDiff | null>(null);
  const [error, setError] = useState<string | null>(null);

  const show = async (version: number) => {
    setOpen(version);
    setDiff(null);
    try {
      setDiff(await props.api.planDiff(props.threadId, version));
      setError(null);
    } catch (caught) {
      setError((caught as Error).message);
    }
  };

  const versions = [...props.history].reverse();
  return (
    <section class="card" aria-labelledby="plans-title">
      <h2 id="plans-title">Plan history</h2>
      {versions.length === 0 && <p class="muted">No compaction yet: the whole log is sent as it is.</p>}
      <ul class="plain">
        {versions.map((entry) => (
          <li key={entry.version}>
            <button
              type="button"
              aria-expanded={open === entry.version}
              aria-controls="plan-diff"
              onClick={() => void show(entry.version)}
            >
              v{entry.version}
            </button>{' '}
            at {when(entry.createdAt)}, up to event {entry.basedOnSeq}
            {entry.revertedFrom !== undefined && <> · restores v{entry.revertedFrom}</>}
          </li>
        ))}
      </ul>
      {props.branches.length > 0 && (
        <>
          <h3>Branch points</h3>
          <ul class="plain" data-testid="branch-points">
            {props.branches.map((branch) => (
              <li key={branch.threadId}>
                ⑂ at <code>{branch.branchedFrom?.fromMessageId}</code>:{' '}
                <a href={`#/threads/${encodeURIComponent(branch.threadId)}`}>{branch.threadId}</a> (plan v
                {branch.planVersion})
              </li>
            ))}
          </ul>
        </>
      )}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {open !== null && diff && (
        <div id="plan-diff" data-testid="plan-diff" aria-live="polite">
          <h3>
            v{diff.version} against v{diff.previousVersion}
          </h3>
          <p>
            Tokens {number(diff.plan.tokensBefore)} → {number(diff.plan.tokensAfter)}
            {diff.compaction?.details && (
              <>
                {' '}
                · <span data-testid="plan-trigger">{triggerText(diff.compaction.details)}</span> · strategy{' '}
                {String((diff.compaction.details.rungsUsed as string[] | undefined)?.join(', ') ?? '—')} ·
                cost ${Number(diff.compaction.details.summarizerCostUsd ?? 0).toFixed(4)} ·{' '}
                {String(diff.compaction.details.status ?? '')}
              </>
            )}
          </p>
          <table>
            <caption>{number(diff.changedMessages)} messages changed action</caption>
            <thead>
              <tr>
                <th scope="col">Span</th>
                <th scope="col">Messages</th>
                <th scope="col">Before</th>
                <th scope="col">After</th>
              </tr>
            </thead>
            <tbody>
              {diff.changes.map((span) => (
                <tr key={span.fromMessageId} data-change={`${span.before}->${span.after}`}>
                  <td>
                    <code>{span.fromMessageId}</code>
                    {span.toMessageId !== span.fromMessageId && (
                      <>
                        {' '}
                        … <code>{span.toMessageId}</code>
                      </>
                    )}
                  </td>
                  <td class="num">{span.messageCount}</td>
                  <td>
                    <span class={`badge badge-${span.before}`}>{span.before}</span>
                  </td>
                  <td>
                    <span class={`badge badge-${span.after}`}>{span.after}</span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** What started a compaction: a person's request or the thread's trigger, with the trigger's reason. */
function triggerText(details: Record<string, unknown>): string {
  const trigger = typeof details.trigger === 'string' ? details.trigger : 'unknown';
  return typeof details.triggerReason === 'string' ? `${trigger} (${details.triggerReason})` : trigger;
}
