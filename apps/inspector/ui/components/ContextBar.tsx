import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, Tooltip } from 'chart.js';
import { useEffect, useRef } from 'preact/hooks';
import type { PromptResponse } from '../api.js';
import { contextParts } from '../context-parts.js';
import { number } from '../format.js';
import type { RenderChoice } from './ThreadView.js';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Legend, Tooltip);

const PROVIDERS = ['anthropic', 'openai-chat', 'openai-responses', 'ai-sdk'];

/** The rendered prompt's tokens by part against the window: a stacked bar (Chart.js) and its table. */
export function ContextBar(props: {
  prompt: PromptResponse | null;
  contextWindow: number;
  choice: RenderChoice;
  onChoice: (choice: RenderChoice) => void;
}) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const chart = useRef<Chart | null>(null);
  const { prompt, contextWindow, choice } = props;
  const parts = prompt ? contextParts(prompt.tokens, prompt.report.ceiling, contextWindow) : [];

  useEffect(() => {
    if (!canvas.current || parts.length === 0) return;
    chart.current?.destroy();
    chart.current = new Chart(canvas.current, {
      type: 'bar',
      data: {
        labels: ['window'],
        datasets: parts.map((part) => ({
          label: part.label,
          data: [part.tokens],
          backgroundColor: part.color,
        })),
      },
      options: {
        indexAxis: 'y',
        animation: false,
        maintainAspectRatio: false,
        scales: {
          x: {
            stacked: true,
            min: 0,
            max: contextWindow,
            ticks: { callback: (value) => number(Number(value)) },
          },
          y: { stacked: true, display: false },
        },
        plugins: { legend: { position: 'bottom', labels: { boxWidth: 12 } } },
      },
    });
    return () => chart.current?.destroy();
  }, [prompt, contextWindow]);

  return (
    <section class="card" aria-labelledby="context-title">
      <h2 id="context-title">Context as the model sees it</h2>
      <form class="inline" onSubmit={(event) => event.preventDefault()}>
        <label for="provider">Provider</label>
        <select
          id="provider"
          value={choice.provider}
          onChange={(event) =>
            props.onChoice({ ...choice, provider: (event.target as HTMLSelectElement).value })
          }
        >
          {PROVIDERS.map((provider) => (
            <option key={provider} value={provider}>
              {provider}
            </option>
          ))}
        </select>
        <label for="budget">Budget (tokens, empty = default)</label>
        <input
          id="budget"
          type="number"
          min={1}
          max={contextWindow}
          value={choice.budget ?? ''}
          onChange={(event) => {
            const value = Number((event.target as HTMLInputElement).value);
            props.onChoice({ provider: choice.provider, ...(value > 0 ? { budget: value } : {}) });
          }}
        />
      </form>
      <div class="bar-canvas">
        <canvas
          ref={canvas}
          role="img"
          aria-label="Stacked bar of the context window by part; the table below has the numbers"
        />
      </div>
      {prompt && (
        <table class="parts" data-testid="context-parts">
          <caption>
            Rendered for {prompt.report.provider}: {number(prompt.tokens.total)} tokens sent, ceiling{' '}
            <span data-testid="ceiling">{prompt.report.ceiling}</span>, window{' '}
            <span data-testid="window">{contextWindow}</span>
          </caption>
          <tbody>
            {parts.map((part) => (
              <tr key={part.key} data-part={part.key}>
                <th scope="row">
                  <span class="swatch" style={{ background: part.color }} aria-hidden="true" /> {part.label}
                </th>
                <td class="num" data-tokens={part.tokens}>
                  {number(part.tokens)}
                </td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row">Total (the window)</th>
              <td class="num" data-testid="parts-total">
                {number(parts.reduce((sum, part) => sum + part.tokens, 0))}
              </td>
            </tr>
          </tfoot>
        </table>
      )}
      {prompt && <RehydrationList prompt={prompt} />}
    </section>
  );
}

/** What this render brought back from artifacts, and what it refused and why. */
function RehydrationList({ prompt }: { prompt: PromptResponse }) {
  const { performed, blocked } = prompt.report.rehydration;
  if (performed.length === 0 && blocked.length === 0) {
    return <p class="muted">No artifact was rehydrated or refused in this render.</p>;
  }
  return (
    <ul class="plain" data-testid="rehydration">
      {performed.map((event) => (
        <li key={`ok-${event.artifactId}`}>
          Rehydrated <code>{event.artifactId.slice(0, 16)}…</code> ({event.trigger},{' '}
          {number(event.tokens ?? 0)} tokens)
        </li>
      ))}
      {blocked.map((event) => (
        <li key={`blocked-${event.artifactId}`} class="error">
          Blocked <code>{event.artifactId.slice(0, 16)}…</code>: {event.reason ?? 'refused'}
          {event.detail ? ` (${event.detail})` : ''}
        </li>
      ))}
    </ul>
  );
}
