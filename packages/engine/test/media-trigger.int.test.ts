import { type CompactionPlan, fixedClock, type Message, type Thread, tokenBudget } from '@compactor/core';
import { renderPromptSync } from '@compactor/render';
import { createExtractiveSummarizer } from '@compactor/summarizer';
import { asInputs } from '@compactor/testkit/sessions';
import { threadBuilder } from '@compactor/testkit/thread-builder';
import { createTokenizer } from '@compactor/tokenizer';
import { afterEach, describe, expect, it } from 'vitest';
import { createCompactionEngine } from '../src/index.js';
import { MEDIA_TRIGGER } from '../src/media-trigger.js';
import { withEmbeddedStores } from './support.js';

const clock = fixedClock('2025-06-01T00:00:00.000Z');
const tokenizer = createTokenizer({ model: 'claude-sonnet-4-5' });
let cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups) await cleanup();
  cleanups = [];
});

/** Small talk, one turn holding a picture, then `after` more turns. */
function dialogue(id: string, policy: Record<string, unknown>, after: number) {
  const builder = threadBuilder(id, { tenantId: 'tenant-1', contextWindow: 16_000, policy: policy as never });
  for (let turn = 0; turn < 12; turn += 1)
    builder.user(`How was the weekend number ${turn}?`).assistant(`It was fine, thanks, weekend ${turn}.`);
  builder.message({
    id: `${id}-picture`,
    role: 'user',
    content: [
      { type: 'text', text: 'Look at the vase I painted!' },
      {
        type: 'image',
        mediaType: 'image/jpeg',
        source: { kind: 'url', url: 'https://example.com/vase.jpg' },
      },
    ],
    metadata: { blipCaption: 'a blue vase with sunflowers' },
  } as Message);
  builder.assistant('Wow, the blue is lovely.');
  for (let turn = 0; turn < after; turn += 1)
    builder.user(`And what about plan ${turn}?`).assistant(`Plan ${turn} sounds good.`);
  return builder.build();
}

async function checkOnce(policy: Record<string, unknown>, after: number) {
  const { stores: store, cleanup } = await withEmbeddedStores();
  cleanups.push(cleanup);
  const id = `media-${after}-${String(policy.abridgeMediaPastTurn)}`;
  const { thread, events } = dialogue(id, policy, after);
  await store.events.append('tenant-1', id, asInputs(events));
  const engine = createCompactionEngine({ ...store, summarizer: createExtractiveSummarizer(), clock });
  const result = await engine.check('tenant-1', id);
  const plan = (await store.plans.getCurrent('tenant-1', id)).plan;
  return { thread, result, plan };
}

function render(thread: Thread, plan: CompactionPlan | null): unknown[] {
  const rendered = renderPromptSync({
    thread,
    plan,
    system: '',
    tools: [],
    budget: tokenBudget({ maxInputTokens: 16_000, outputReserveTokens: 4_000 }),
    provider: 'anthropic',
    tokenizer,
  });
  return (rendered.request as { messages: unknown[] }).messages;
}

describe('media past their turn (ADR-0440)', () => {
  it("commits the picture's abridgement alone once its turn is over, leaving every earlier message byte-identical", async () => {
    const { thread, result, plan } = await checkOnce({ abridgeMediaPastTurn: 'auto' }, 1);
    expect(result.trigger.trigger).toBe(MEDIA_TRIGGER);
    expect(result.commit.status).toBe('committed');
    expect(plan!.abridgements.map((record) => record.span.messageIds)).toEqual([[`${thread.id}-picture`]]);
    expect(plan!.summarizations).toEqual([]);
    expect(plan!.drops).toEqual([]);
    expect(plan!.clearings).toEqual([]);
    const before = render(thread, null).map((message) => JSON.stringify(message));
    const after = render(thread, plan).map((message) => JSON.stringify(message));
    const picture = thread.messages.findIndex((message) => message.id === `${thread.id}-picture`);
    expect(after.slice(0, picture)).toEqual(before.slice(0, picture));
    expect(after[picture]).not.toEqual(before[picture]);
    expect(after[picture]).toContain('a blue vase with sunflowers');
    expect(after.length).toBe(before.length);
  });

  it('leaves the picture alone while its turn is the newest, and under the default', async () => {
    const newest = await checkOnce({ abridgeMediaPastTurn: 'auto' }, 0);
    expect(newest.result.commit.status).toBe('not_needed');
    expect(newest.plan).toBeNull();
    const off = await checkOnce({}, 1);
    expect(off.result.trigger.fire).toBe(false);
    expect(off.plan).toBeNull();
  });
});
