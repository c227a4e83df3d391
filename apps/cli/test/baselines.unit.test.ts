import type { ProviderName, Thread, ThreadMessage } from '@compactor/core';
import { validateProviderRequest } from '@compactor/render/validate';
import { threadBuilder } from '@compactor/testkit/thread-builder';
import { createTokenizer } from '@compactor/tokenizer';
import { describe, expect, it, vi } from 'vitest';
import type { Baseline, BaselineInput } from '../src/eval/baselines/baseline.js';
import {
  aiSdkPruneBaseline,
  baselines,
  langchainTrimBaseline,
  openCodePruneBaseline,
  slidingWindowBaseline,
} from '../src/eval/baselines/index.js';
import {
  OPENCODE_CLEARED_TEXT,
  openCodePrunable,
  openCodeThresholds,
} from '../src/eval/baselines/opencode-prune-baseline.js';
import { renderSelection } from '../src/eval/baselines/render-selection.js';

// Pass-through spies: the baselines must really call their packages (the behaviour is unchanged).
const calls = vi.hoisted(() => ({ trimMessages: 0, pruneMessages: 0, slidingWindow: 0 }));
vi.mock('@langchain/core/messages', async (importOriginal) => {
  const actual = await importOriginal<typeof import('@langchain/core/messages')>();
  return {
    ...actual,
    trimMessages: (...args: Parameters<typeof actual.trimMessages>) => {
      calls.trimMessages += 1;
      return (actual.trimMessages as (...rest: unknown[]) => unknown)(...args);
    },
  };
});
vi.mock('ai', async (importOriginal) => {
  const actual = await importOriginal<typeof import('ai')>();
  return {
    ...actual,
    pruneMessages: (...args: Parameters<typeof actual.pruneMessages>) => {
      calls.pruneMessages += 1;
      return actual.pruneMessages(...args);
    },
  };
});
vi.mock('@compactor/core', async (importOriginal) => {
  const actual = await importOriginal<typeof import('@compactor/core')>();
  return {
    ...actual,
    slidingWindow: (...args: Parameters<typeof actual.slidingWindow>) => {
      calls.slidingWindow += 1;
      return actual.slidingWindow(...args);
    },
  };
});

const TURNS = 8;
const tokenizer = createTokenizer({ model: 'claude-sonnet-4-5' });
const providers: ProviderName[] = ['anthropic', 'openai-chat'];
const SYSTEM = 'You are a careful coding agent.';

/** Unique words per turn, so every piece of content can be looked for in a request. */
function words(prefix: string, count: number): string {
  return Array.from({ length: count }, (_, index) => `${prefix}w${index}`).join(' ');
}

function codingThread(): Thread {
  const builder = threadBuilder('baselines');
  for (let turn = 1; turn <= TURNS; turn += 1) {
    builder
      .user(`request ${turn}: ${words(`u${turn}`, 12)}`)
      .assistant(`looking at file ${turn}`, {
        reasoning: `thinking about ${turn}`,
        toolCalls: [{ id: `call_${turn}`, name: 'read_file', input: { path: `src/file-${turn}-x.ts` } }],
      })
      .toolResult(`call_${turn}`, `contents ${turn}: ${words(`t${turn}`, 150)}`)
      .assistant(`done with step ${turn}: ${words(`a${turn}`, 8)}`);
  }
  return builder.build().thread;
}

const thread = codingThread();

/** Strings a message carries verbatim (reasoning excluded: no baseline promises it). */
function pieces(message: ThreadMessage): string[] {
  return message.content.flatMap((part) => {
    if (part.type === 'text') return [part.text];
    if (part.type === 'tool_result') return [String(part.content)];
    if (part.type === 'tool_call') return [String((part.input as { path: string }).path)];
    return [];
  });
}

function carries(requestText: string, piece: string): boolean {
  return requestText.includes(JSON.stringify(piece).slice(1, -1));
}

function inputFor(provider: ProviderName, ceiling: number): BaselineInput {
  return { thread, ceiling, provider, tokenizer, system: SYSTEM };
}

function fullSize(provider: ProviderName): number {
  return renderSelection(inputFor(provider, Number.MAX_SAFE_INTEGER), thread.messages).tokens;
}

describe.each(providers)('baselines for %s', (provider) => {
  const full = fullSize(provider);
  const ceilings = [0.3, 0.55, 0.8, 1.2].map((share) => Math.floor(full * share));

  describe.each(baselines.map((baseline) => [baseline.name, baseline] as const))('%s', (_name, baseline) => {
    it.each(ceilings)(
      'fits a ceiling of %i tokens with a valid request and honest kept ids',
      async (ceiling) => {
        const output = await baseline.run(inputFor(provider, ceiling));
        const count = tokenizer.countRequest(output.request as never, provider);
        expect(count).toBeLessThanOrEqual(ceiling);
        expect(validateProviderRequest(provider, output.request)).toEqual({ valid: true, errors: [] });

        const requestText = JSON.stringify(output.request);
        const kept = new Set(output.keptMessageIds);
        expect(kept.size).toBeGreaterThan(0);
        for (const message of thread.messages) {
          const present = pieces(message).map((piece) => carries(requestText, piece));
          if (kept.has(message.id)) expect(present.every(Boolean), message.id).toBe(true);
          else expect(present.every(Boolean), message.id).toBe(false);
        }
        // The newest user request always survives (every baseline keeps the most recent turn).
        expect(kept.has(thread.messages.at(-4)!.id)).toBe(true);
      },
    );

    it('keeps less as the ceiling shrinks', async () => {
      const sizes: number[] = [];
      // Down to a ceiling below one turn (pruned messages are tiny, so ai-sdk fits everything above).
      for (const ceiling of [Math.floor(full * 0.03), ...ceilings]) {
        sizes.push((await baseline.run(inputFor(provider, ceiling))).keptMessageIds.length);
      }
      expect(sizes).toEqual([...sizes].sort((left, right) => left - right));
      expect(sizes[0]).toBeLessThan(sizes.at(-1)!);
    });
  });

  it('sliding window keeps a suffix of the thread starting at a user message, the largest that fits', async () => {
    const ceiling = ceilings[1]!;
    const output = await slidingWindowBaseline.run(inputFor(provider, ceiling));
    const first = thread.messages.findIndex((message) => output.keptMessageIds.includes(message.id));
    expect(first).toBeGreaterThan(0);
    expect(thread.messages[first]!.role).toBe('user');
    expect(output.keptMessageIds.toSorted()).toEqual(
      thread.messages
        .slice(first)
        .map((message) => message.id)
        .toSorted(),
    );
    // One more turn would not have fit.
    const previousTurn = thread.messages.slice(first - 4);
    expect(previousTurn[0]!.role).toBe('user');
    expect(renderSelection(inputFor(provider, ceiling), previousTurn).tokens).toBeGreaterThan(ceiling);
  });

  it('langchain trimMessages with strategy last keeps the newest messages and starts on a human message', async () => {
    const output = await langchainTrimBaseline.run(inputFor(provider, ceilings[1]!));
    const keptIndexes = thread.messages
      .map((message, index) => (output.keptMessageIds.includes(message.id) ? index : -1))
      .filter((index) => index >= 0);
    expect(keptIndexes.at(-1)).toBe(thread.messages.length - 1);
    expect(keptIndexes).toEqual(
      Array.from({ length: keptIndexes.length }, (_, offset) => keptIndexes[0]! + offset),
    );
    expect(thread.messages[keptIndexes[0]!]!.role).toBe('user');
    expect(keptIndexes[0]).toBeGreaterThan(0);
  });

  it('ai-sdk pruneMessages strips reasoning and every tool pair before the last message', async () => {
    const output = await aiSdkPruneBaseline.run(inputFor(provider, ceilings.at(-1)!));
    const requestText = JSON.stringify(output.request);
    for (let turn = 1; turn <= TURNS; turn += 1) {
      expect(carries(requestText, `thinking about ${turn}`)).toBe(false);
      expect(carries(requestText, `contents ${turn}: ${words(`t${turn}`, 150)}`)).toBe(false);
      expect(carries(requestText, `done with step ${turn}: ${words(`a${turn}`, 8)}`)).toBe(true);
    }
    const toolMessages = thread.messages.filter((message) => message.role === 'tool');
    expect(toolMessages.some((message) => output.keptMessageIds.includes(message.id))).toBe(false);
  });

  it('opencode prune clears old tool outputs and protects the last two turns', async () => {
    const output = await openCodePruneBaseline.run(inputFor(provider, ceilings.at(-1)!));
    const requestText = JSON.stringify(output.request);
    expect(requestText).toContain(OPENCODE_CLEARED_TEXT);
    for (const turn of [TURNS - 1, TURNS]) {
      expect(carries(requestText, `contents ${turn}: ${words(`t${turn}`, 150)}`)).toBe(true);
    }
    expect(carries(requestText, `contents 1: ${words('t1', 150)}`)).toBe(false);
    // Nothing had to be dropped at this ceiling: every user request is still there.
    for (let turn = 1; turn <= TURNS; turn += 1) {
      expect(carries(requestText, `request ${turn}: ${words(`u${turn}`, 12)}`)).toBe(true);
    }
  });
});

describe('OpenCode prune rule', () => {
  const built = threadBuilder('opencode');
  for (let turn = 1; turn <= 5; turn += 1) {
    built
      .user(`u${turn}`)
      .assistant(undefined, { toolCalls: [{ id: `c${turn}`, name: turn === 2 ? 'skill' : 'bash' }] })
      .toolResult(`c${turn}`, 'x'.repeat(10 * turn));
  }
  const messages = built.build().thread.messages;
  const length = (text: string) => text.length;
  const toolId = (turn: number) =>
    messages.find((message) => message.role === 'tool' && message.index === turn * 3 - 1)!.id;

  it('protects the last two turns and the skill tool, prunes past PROTECT when over MINIMUM', () => {
    // Walking back from turn 3: 30 (total 30, protected), skill skipped, then 10 (total 40 > 35: pruned).
    expect([...openCodePrunable(messages, length, { protect: 35, minimum: 5 })]).toEqual([toolId(1)]);
    // From turn 3 with protect 0 every output but the skill's is prunable: 30 + 10 tokens.
    expect([...openCodePrunable(messages, length, { protect: 0, minimum: 39 })].toSorted()).toEqual(
      [toolId(1), toolId(3)].toSorted(),
    );
    // Not more than MINIMUM prunable: nothing is pruned.
    expect(openCodePrunable(messages, length, { protect: 0, minimum: 40 }).size).toBe(0);
  });

  it('scales the thresholds with the ceiling, never above the originals', () => {
    expect(openCodeThresholds(20_000)).toEqual({ protect: 4_000, minimum: 2_000 });
    expect(openCodeThresholds(1_000_000)).toEqual({ protect: 40_000, minimum: 20_000 });
  });
});

describe('each baseline runs its own package', () => {
  it.each([
    ['sliding-window', slidingWindowBaseline, 'slidingWindow'],
    ['langchain-trim', langchainTrimBaseline, 'trimMessages'],
    ['ai-sdk-prune', aiSdkPruneBaseline, 'pruneMessages'],
  ] as [string, Baseline, keyof typeof calls][])('%s calls %s', async (_name, baseline, name) => {
    const before = calls[name];
    await baseline.run(inputFor('anthropic', Math.floor(fullSize('anthropic') / 2)));
    expect(calls[name]).toBeGreaterThan(before);
  });
});

describe('a thread with a system message, a pinned constraint and an image', () => {
  const built = threadBuilder('mixed').system('Project rules: answer in English.');
  built.user('constraint: never touch the migrations folder', { pinned: true });
  for (let turn = 1; turn <= 6; turn += 1) {
    built
      .message({
        id: `photo-${turn}`,
        role: 'user',
        content: [
          { type: 'text', text: `photo ${turn}: ${words(`p${turn}`, 20)}` },
          {
            type: 'image',
            mediaType: 'image/png',
            source: { kind: 'url', url: `https://example.com/${turn}.png` },
          },
        ],
      })
      .assistant(`seen photo ${turn}: ${words(`s${turn}`, 40)}`);
  }
  const mixed = built.build().thread;

  it.each(providers)('every baseline stays valid and within the ceiling for %s', async (provider) => {
    const input = (ceiling: number): BaselineInput => ({
      thread: mixed,
      ceiling,
      provider,
      tokenizer,
      system: SYSTEM,
    });
    const full = renderSelection(input(Number.MAX_SAFE_INTEGER), mixed.messages).tokens;
    for (const baseline of baselines) {
      for (const ceiling of [Math.floor(full * 0.5), full]) {
        const output = await baseline.run(input(ceiling));
        expect(tokenizer.countRequest(output.request as never, provider), baseline.name).toBeLessThanOrEqual(
          ceiling,
        );
        expect(validateProviderRequest(provider, output.request), baseline.name).toEqual({
          valid: true,
          errors: [],
        });
        expect(output.keptMessageIds, baseline.name).toContain(mixed.messages.at(-1)!.id);
      }
    }
  });
});
