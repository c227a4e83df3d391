import type { Plan } from '../api.js';
import { number } from '../format.js';

/** The summaries the current plan renders in place of their spans; pinned facts are marked. */
export function SummaryView({ plan }: { plan: Plan | null }) {
  const records = plan?.summarizations ?? [];
  return (
    <section class="card" aria-labelledby="summary-title">
      <h2 id="summary-title">Summary</h2>
      {records.length === 0 && <p class="muted">The current plan summarizes nothing.</p>}
      {records.map((record) => (
        <div key={record.span.messageIds[0]} class="summary" data-testid="summary">
          <h3>
            {record.span.messageIds[0]} … {record.span.messageIds.at(-1)} ({record.span.messageIds.length}{' '}
            messages, round {record.round}, {number(record.summaryTokenCount)} tokens)
          </h3>
          {record.summary.currentTask && <p>Current task: {record.summary.currentTask}</p>}
          <ul>
            {record.summary.facts.map((fact) => (
              <li key={fact.text} class={fact.pinned ? 'pinned' : undefined} data-pinned={fact.pinned}>
                {fact.pinned && (
                  <strong class="pin">
                    <span aria-hidden="true">📌 </span>pinned:
                  </strong>
                )}{' '}
                {fact.text}
              </li>
            ))}
          </ul>
          {record.summary.decisions.length > 0 && (
            <>
              <h4>Decisions</h4>
              <ul>
                {record.summary.decisions.map((decision) => (
                  <li key={decision.decision}>{decision.decision}</li>
                ))}
              </ul>
            </>
          )}
          {record.summary.openItems.length > 0 && (
            <>
              <h4>Open items</h4>
              <ul>
                {record.summary.openItems.map((item) => (
                  <li key={item.description}>
                    {item.description} ({item.priority})
                  </li>
                ))}
              </ul>
            </>
          )}
        </div>
      ))}
    </section>
  );
}
