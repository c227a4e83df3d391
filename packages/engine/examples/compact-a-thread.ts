/**
 * The README's example, compiled by the workspace typecheck and run by
 * `test/readme-example.int.test.ts`: a long thread on the embedded stores, compacted by the engine
 * with the offline extractive summarizer, then rendered under the committed plan.
 */
import { type EventInput, foldThread, systemClock } from '@compactor/core';
import { createEmbeddedStores } from '@compactor/embedded';
import { createCompactionEngine, threadBudget } from '@compactor/engine';
import { renderPromptSync } from '@compactor/render';
import { createExtractiveSummarizer } from '@compactor/summarizer';
import { createTokenizer } from '@compactor/tokenizer';

/** A 40-turn conversation in an 8k window: far above the planner's target. */
function longConversation(): EventInput[] {
  const events: EventInput[] = [
    { eventId: 'created', type: 'thread.created', model: 'claude-sonnet-4-5', contextWindow: 8_000 },
    {
      eventId: 'rule',
      type: 'message.appended',
      message: {
        id: 'rule',
        role: 'user',
        pinned: true,
        content: [{ type: 'text', text: 'Reply in English.' }],
      },
    },
  ];
  for (let turn = 1; turn <= 40; turn += 1) {
    const detail = `Step ${turn} of the migration touched module_${turn}.ts and its tests. `.repeat(8);
    events.push(
      {
        eventId: `u${turn}`,
        type: 'message.appended',
        message: {
          id: `u${turn}`,
          role: 'user',
          content: [{ type: 'text', text: `Continue with step ${turn}.` }],
        },
      },
      {
        eventId: `a${turn}`,
        type: 'message.appended',
        message: { id: `a${turn}`, role: 'assistant', content: [{ type: 'text', text: detail }] },
      },
    );
  }
  return events;
}

export async function compactAThread(dataDir: string) {
  const stores = await createEmbeddedStores({ dataDir });
  try {
    await stores.events.append('acme', 'migration', longConversation());

    const engine = createCompactionEngine({
      events: stores.events,
      plans: stores.plans,
      artifacts: stores.artifacts,
      lifecycle: stores.lifecycle,
      summarizer: createExtractiveSummarizer(),
      clock: systemClock,
    });
    // What a worker does for each compaction-check job: trigger, plan, commit with compare-and-set.
    const result = await engine.check('acme', 'migration');

    // What an agent runtime does before each model call: render the thread under the current plan.
    const thread = foldThread(await stores.events.readAll('acme', 'migration'));
    const { plan } = await stores.plans.getCurrent('acme', 'migration');
    const rendered = renderPromptSync({
      thread,
      plan,
      system: 'You are a careful migration assistant.',
      tools: [],
      budget: threadBudget(thread),
      provider: 'anthropic',
      tokenizer: createTokenizer({ model: thread.model, modelInfo: { contextWindow: thread.contextWindow } }),
    });
    const lifecycle = await stores.lifecycle.list('acme', 'migration');
    return {
      triggerFired: result.trigger.fire,
      commit: result.commit,
      compressionRatio: result.compressionRatio,
      renderedTokens: rendered.tokens.total,
      renderedText: JSON.stringify(rendered.request),
      lifecycleNames: lifecycle.map((event) => event.name),
    };
  } finally {
    await stores.close();
  }
}
