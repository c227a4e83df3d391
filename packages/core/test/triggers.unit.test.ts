import { describe, expect, it } from 'vitest';
import {
  allOf,
  anyOf,
  buildTrigger,
  manualTrigger,
  type ThreadMessage,
  type TriggerContext,
  tokenCountTrigger,
  turnCountTrigger,
} from '../src/index.js';
import { threadBuilder } from './support/testkit.js';

/** Three real user turns, plus user messages that are not turns: synthetic, subagent, and a system message. */
function messages(): ThreadMessage[] {
  return threadBuilder()
    .system('be brief')
    .user('one')
    .assistant('a')
    .user('reminder', { synthetic: true })
    .user('two')
    .user('sub task', { subagentId: 'agent-1' })
    .assistant('sub answer', { subagentId: 'agent-1' })
    .user('three')
    .build().thread.messages;
}

const context = (overrides: Partial<TriggerContext> = {}): TriggerContext => ({
  messages: messages(),
  messageTokens: 1_000,
  contextWindow: 10_000,
  ...overrides,
});

describe('token count trigger', () => {
  it('fires at or above an absolute threshold, and says why', () => {
    const trigger = tokenCountTrigger({ threshold: 4_000 });
    expect(trigger.name).toBe('tokens>=4000');
    expect(trigger.evaluate(context({ messageTokens: 3_999 }))).toEqual({
      fire: false,
      trigger: 'tokens>=4000',
      reason: '3999 tokens < threshold 4000',
    });
    expect(trigger.evaluate(context({ messageTokens: 4_000 }))).toEqual({
      fire: true,
      trigger: 'tokens>=4000',
      reason: '4000 tokens >= threshold 4000',
    });
  });

  it('fires at or above a fraction of the context window, rounded down', () => {
    const trigger = tokenCountTrigger({ fraction: 0.85 });
    // floor(10,001 × 0.85) = floor(8,500.85) = 8,500.
    expect(trigger.evaluate(context({ contextWindow: 10_001, messageTokens: 8_499 })).fire).toBe(false);
    const fired = trigger.evaluate(context({ contextWindow: 10_001, messageTokens: 8_500 }));
    expect(fired.fire).toBe(true);
    expect(fired.reason).toBe('8500 tokens >= threshold 8500');
    expect(trigger.name).toBe('tokens>=0.85×window');
  });
});

describe('turn count trigger', () => {
  it('counts only real, root-level user turns', () => {
    const decision = turnCountTrigger(2).evaluate(context());
    expect(decision).toEqual({ fire: true, trigger: 'turns>2', reason: '3 user turns > 2' });
  });

  it('fires only above the limit', () => {
    expect(turnCountTrigger(3).evaluate(context())).toEqual({
      fire: false,
      trigger: 'turns>3',
      reason: '3 user turns <= 3',
    });
    expect(turnCountTrigger(0).evaluate(context({ messages: [] })).fire).toBe(false);
  });
});

describe('manual trigger', () => {
  it('fires only when compaction was requested', () => {
    expect(manualTrigger().evaluate(context({ manual: true }))).toEqual({
      fire: true,
      trigger: 'manual',
      reason: 'compaction was requested',
    });
    expect(manualTrigger().evaluate(context())).toEqual({
      fire: false,
      trigger: 'manual',
      reason: 'no request',
    });
  });
});

describe('composite triggers', () => {
  const tokens = tokenCountTrigger({ threshold: 4_000 });
  const turns = turnCountTrigger(2); // fires on the fixture's 3 turns

  it('any-of fires when one child fires and gives the reasons of those that fired', () => {
    const trigger = anyOf(tokens, turns);
    expect(trigger.name).toBe('any(tokens>=4000, turns>2)');
    const decision = trigger.evaluate(context());
    expect(decision.fire).toBe(true);
    expect(decision.reason).toBe('3 user turns > 2');
    expect(decision.children?.map((child) => child.fire)).toEqual([false, true]);
    const idle = anyOf(tokens, manualTrigger()).evaluate(context());
    expect(idle.fire).toBe(false);
    expect(idle.reason).toBe('no trigger fired');
  });

  it('all-of fires only when every child fires, and says which did not', () => {
    const trigger = allOf(tokens, turns);
    const idle = trigger.evaluate(context());
    expect(idle.fire).toBe(false);
    expect(idle.reason).toBe('not fired: 1000 tokens < threshold 4000');
    const fired = trigger.evaluate(context({ messageTokens: 5_000 }));
    expect(fired.fire).toBe(true);
    expect(fired.reason).toBe('5000 tokens >= threshold 4000; 3 user turns > 2');
    expect(fired.children).toHaveLength(2);
  });
});

describe('buildTrigger', () => {
  it('builds each kind from its stored config, nested ones included', () => {
    const trigger = buildTrigger({
      kind: 'any',
      triggers: [
        { kind: 'manual' },
        {
          kind: 'all',
          triggers: [
            { kind: 'turns', maxTurns: 2 },
            { kind: 'tokens', fraction: 0.5 },
          ],
        },
      ],
    });
    expect(trigger.name).toBe('any(manual, all(turns>2, tokens>=0.5×window))');
    expect(trigger.evaluate(context({ messageTokens: 4_999 })).fire).toBe(false);
    expect(trigger.evaluate(context({ messageTokens: 5_000 })).fire).toBe(true);
    expect(trigger.evaluate(context({ manual: true })).fire).toBe(true);
    expect(buildTrigger({ kind: 'tokens', threshold: 10 }).name).toBe('tokens>=10');
  });

  it('builds the policy default (85% of the window)', () => {
    const trigger = buildTrigger({ kind: 'tokens', fraction: 0.85 });
    expect(trigger.evaluate(context({ messageTokens: 8_499 })).fire).toBe(false);
    expect(trigger.evaluate(context({ messageTokens: 8_500 })).fire).toBe(true);
  });
});

describe('target trigger', () => {
  it('fires only above the planner target, and never without one', async () => {
    const { buildTrigger } = await import('../src/index.js');
    const trigger = buildTrigger({ kind: 'target' });
    const context = { messages: [], contextWindow: 32_000 };
    expect(trigger.evaluate({ ...context, messageTokens: 17_101, targetTokens: 17_100 })).toMatchObject({
      fire: true,
      reason: '17101 tokens > target 17100',
    });
    expect(trigger.evaluate({ ...context, messageTokens: 17_100, targetTokens: 17_100 }).fire).toBe(false);
    expect(trigger.evaluate({ ...context, messageTokens: 1e9 })).toMatchObject({
      fire: false,
      reason: 'no target given',
    });
  });
});
