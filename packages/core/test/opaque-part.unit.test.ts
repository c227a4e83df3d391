import { threadBuilder } from '@compactor/testkit/thread-builder';
import { describe, expect, it } from 'vitest';
import {
  computeProtectedRegions,
  emptyPlan,
  holdsOpaquePart,
  messageSchema,
  normalizePlan,
} from '../src/index.js';

const COMPACTION = {
  type: 'compaction',
  content: 'summary',
  encrypted_content: 'ZW5j',
  signature: 'c2ln',
  tool_changes: [],
};

describe('opaque provider parts (ADR-0250)', () => {
  it('are taken in assistant messages only, with the payload kept as it came', () => {
    const parsed = messageSchema.parse({
      id: 'a',
      role: 'assistant',
      content: [{ type: 'opaque', provider: 'anthropic', payload: COMPACTION }],
    });
    expect(JSON.stringify(parsed.content[0])).toBe(
      JSON.stringify({ type: 'opaque', provider: 'anthropic', payload: COMPACTION }),
    );
    expect(holdsOpaquePart(parsed)).toBe(true);
    for (const role of ['user', 'tool', 'system'] as const) {
      expect(
        messageSchema.safeParse({
          id: 'u',
          role,
          content: [{ type: 'opaque', provider: 'anthropic', payload: COMPACTION }],
        }).success,
      ).toBe(false);
    }
    expect(
      messageSchema.safeParse({
        id: 'a',
        role: 'assistant',
        content: [{ type: 'opaque', provider: 'gemini', payload: {} }],
      }).success,
    ).toBe(false);
  });

  it('pin their message for the planner, wherever it is', () => {
    const { thread } = threadBuilder('t')
      .user('one')
      .message({
        id: 'server',
        role: 'assistant',
        content: [{ type: 'opaque', provider: 'anthropic', payload: COMPACTION }],
      })
      .user('two')
      .assistant('a')
      .user('three')
      .assistant('b')
      .user('four')
      .assistant('c')
      .build();
    const regions = computeProtectedRegions(
      thread,
      { ...thread.policy, keepRecentTurns: 1, keepRecentTokens: 0 },
      () => 10,
      normalizePlan(emptyPlan(thread.id, '2025-01-01T00:00:00.000Z')),
      1_000,
    );
    expect(regions.protectedStart).toBeGreaterThan(1);
    expect(regions.untouchable.has('server')).toBe(true);
    expect(regions.untouchable.has('m3')).toBe(false);
  });
});
