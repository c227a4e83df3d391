import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  compactionPlanSchema,
  compactionPolicySchema,
  contentPartSchema,
  eventInputSchema,
  messageSchema,
  parsePolicy,
  storedEventSchema,
  structuredSummarySchema,
  toolResultEnvelopeSchema,
  triggerConfigSchema,
} from '../src/index.js';

/** The dotted paths of every issue a failed parse reports. */
function issuePaths(schema: z.ZodType, input: unknown): string[] {
  const result = schema.safeParse(input);
  expect(result.success, 'expected the parse to fail').toBe(false);
  return (result.error?.issues ?? []).map((issue) => issue.path.join('.'));
}

const stored = {
  eventId: 'e1',
  tenantId: 'tenant-1',
  threadId: 't1',
  seq: 2,
  timestamp: '2025-01-01T00:00:00Z',
};
const toolResult = {
  type: 'tool_result',
  toolName: 'create_order',
  toolCallId: 'c1',
  outcome: 'success',
  content: { orderId: 'A-17', total: 30 },
  keyFields: { orderId: 'A-17' },
  durability: 'anchoring',
};

describe('message and event schemas', () => {
  it('accept every role with the parts it may carry', () => {
    const messages = [
      { id: 'm1', role: 'system', content: [{ type: 'text', text: 'be brief' }] },
      {
        id: 'm2',
        role: 'user',
        content: [
          { type: 'text', text: 'what is in this?' },
          { type: 'image', mediaType: 'image/png', source: { kind: 'base64', data: 'iVBOR' } },
          { type: 'document', mediaType: 'application/pdf', source: { kind: 'artifact', artifactId: 'a1' } },
        ],
        pinned: true,
      },
      {
        id: 'm3',
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'thinking', signature: 'sig' },
          { type: 'text', text: 'ordering' },
          { type: 'tool_call', id: 'c1', name: 'create_order', input: { sku: 'X' } },
        ],
      },
      { id: 'm4', role: 'tool', content: [toolResult] },
      {
        id: 'm5',
        role: 'user',
        synthetic: true,
        subagentId: 'agent-1',
        content: [{ type: 'text', text: 'hi' }],
      },
    ];
    for (const message of messages) expect(messageSchema.parse(message)).toEqual(message);
  });

  it('accepts stored events of every type and keeps their fields', () => {
    const events = [
      { ...stored, seq: 1, type: 'thread.created', model: 'claude-sonnet-4-5', contextWindow: 200_000 },
      {
        ...stored,
        type: 'message.appended',
        message: { id: 'm1', role: 'user', content: [{ type: 'text', text: 'hi' }] },
      },
      { ...stored, type: 'thread.branched', sourceThreadId: 't0', fromMessageId: 'm9', sourceVersion: 12 },
      {
        ...stored,
        type: 'plan.committed',
        planVersion: 1,
        basedOnSeq: 2,
        tokensBefore: 900,
        tokensAfter: 300,
      },
      { ...stored, type: 'lifecycle', name: 'compaction_completed', details: { tokensFreed: 600 } },
    ];
    for (const event of events) expect(storedEventSchema.parse(event)).toEqual(event);
  });

  it('fills the defaults of a tool result envelope and a lifecycle event', () => {
    const envelope = toolResultEnvelopeSchema.parse({
      toolName: 'ls',
      toolCallId: 'c1',
      outcome: 'success',
      content: 'a b c',
    });
    expect(envelope.keyFields).toEqual({});
    const event = storedEventSchema.parse({ ...stored, type: 'lifecycle', name: 'compaction_failed' });
    expect(event.type === 'lifecycle' && event.details).toEqual({});
  });

  it('rejects a tool call inside a user message at the part that is wrong', () => {
    const paths = issuePaths(messageSchema, {
      id: 'm1',
      role: 'user',
      content: [
        { type: 'text', text: 'hi' },
        { type: 'tool_call', id: 'c1', name: 'x', input: {} },
      ],
    });
    expect(paths).toEqual(['content.1.type']);
  });

  it('rejects a tool message without a tool result', () => {
    expect(
      issuePaths(messageSchema, { id: 'm1', role: 'tool', content: [{ type: 'text', text: 'done' }] }),
    ).toEqual(['content.0.type']);
  });

  it('rejects parts a role may not carry: reasoning from a user, images from the system', () => {
    expect(
      issuePaths(messageSchema, { id: 'm1', role: 'user', content: [{ type: 'reasoning', text: 'x' }] }),
    ).toEqual(['content.0.type']);
    expect(
      issuePaths(messageSchema, {
        id: 'm1',
        role: 'system',
        content: [{ type: 'image', mediaType: 'image/png', source: { kind: 'url', url: 'https://x/y.png' } }],
      }),
    ).toEqual(['content.0.type']);
    expect(issuePaths(messageSchema, { id: 'm1', role: 'assistant', content: [toolResult] })).toEqual([
      'content.0.type',
    ]);
  });

  it('rejects an empty content array, an empty id and an unknown role', () => {
    expect(issuePaths(messageSchema, { id: 'm1', role: 'user', content: [] })).toEqual(['content']);
    expect(
      issuePaths(messageSchema, { id: '', role: 'user', content: [{ type: 'text', text: 'x' }] }),
    ).toEqual(['id']);
    expect(
      issuePaths(messageSchema, { id: 'm1', role: 'developer', content: [{ type: 'text', text: 'x' }] }),
    ).toEqual(['role']);
  });

  it('rejects bad parts with the path of the bad field', () => {
    expect(issuePaths(contentPartSchema, { ...toolResult, outcome: 'maybe' })).toEqual(['outcome']);
    expect(issuePaths(contentPartSchema, { ...toolResult, durability: 'forever' })).toEqual(['durability']);
    expect(issuePaths(contentPartSchema, { ...toolResult, toolCallId: '' })).toEqual(['toolCallId']);
    expect(issuePaths(contentPartSchema, { type: 'tool_call', id: 'c1', name: '', input: {} })).toEqual([
      'name',
    ]);
    expect(
      issuePaths(contentPartSchema, {
        type: 'image',
        mediaType: 'image/png',
        source: { kind: 'ftp', url: 'x' },
      }),
    ).toEqual(['source.kind']);
    expect(issuePaths(contentPartSchema, { type: 'video', url: 'x' })).toEqual(['type']);
  });

  it('rejects negative and fractional numbers in events', () => {
    expect(
      issuePaths(storedEventSchema, {
        ...stored,
        seq: 0,
        type: 'thread.created',
        model: 'm',
        contextWindow: -5,
      }),
    ).toEqual(expect.arrayContaining(['seq', 'contextWindow']));
    expect(
      issuePaths(storedEventSchema, {
        ...stored,
        type: 'plan.committed',
        planVersion: 1,
        basedOnSeq: 1.5,
        tokensBefore: -1,
        tokensAfter: 0,
      }),
    ).toEqual(expect.arrayContaining(['basedOnSeq', 'tokensBefore']));
    expect(
      issuePaths(eventInputSchema, {
        eventId: 'e1',
        tokens: -3,
        type: 'message.appended',
        message: { id: 'm1', role: 'user', content: [{ type: 'text', text: 'x' }] },
      }),
    ).toEqual(['tokens']);
  });

  it('reports the path inside a message of an event', () => {
    expect(
      issuePaths(storedEventSchema, {
        ...stored,
        type: 'message.appended',
        message: { id: 'm1', role: 'tool', content: [{ type: 'text', text: 'x' }] },
      }),
    ).toEqual(['message.content.0.type']);
  });

  it('checks event ids, timestamps and lifecycle names of client input', () => {
    const message = { id: 'm1', role: 'user', content: [{ type: 'text', text: 'x' }] };
    expect(eventInputSchema.safeParse({ eventId: 'e1', type: 'message.appended', message }).success).toBe(
      true,
    );
    expect(issuePaths(eventInputSchema, { eventId: '', type: 'message.appended', message })).toEqual([
      'eventId',
    ]);
    expect(
      issuePaths(eventInputSchema, { eventId: 'x'.repeat(201), type: 'message.appended', message }),
    ).toEqual(['eventId']);
    expect(
      issuePaths(eventInputSchema, {
        eventId: 'e1',
        timestamp: 'yesterday',
        type: 'message.appended',
        message,
      }),
    ).toEqual(['timestamp']);
    expect(
      issuePaths(eventInputSchema, { eventId: 'e1', type: 'lifecycle', name: 'compaction_exploded' }),
    ).toEqual(['name']);
    expect(issuePaths(eventInputSchema, { eventId: 'e1', type: 'message.deleted', messageId: 'm1' })).toEqual(
      ['type'],
    );
  });
});

describe('policy and trigger schemas', () => {
  it('applies every default to {}', () => {
    const policy = compactionPolicySchema.parse({});
    expect(policy).toEqual({
      version: '1',
      mode: { kind: 'ladder' },
      autoCompact: true,
      trigger: { kind: 'target' },
      softThresholdPercent: 0.85,
      outputReserveTokens: 16384,
      safetyBufferTokens: 500,
      rehydrationReserveTokens: 2000,
      keepRecentTurns: 3,
      keepRecentTokens: 20000,
      keepRecentTokensShare: 0.1,
      keepUserMessages: true,
      keepUserTokens: 20000,
      keepUserInstructionTokens: 8000,
      strategies: { abridge: true, externalize: true, summarize: true, clear: true, drop: true },
      externalizeThresholdTokens: 1000,
      abridgeMinTokensFreed: 100,
      abridgePasteEdgeLines: 5,
      abridgeTailMedia: true,
      abridgeMediaPastTurn: 'never',
      clearAtLeastTokens: 2000,
      maxSummarizationRounds: 50,
      summaryShare: { dialogue: 0.4, coding: 0.3, other: 0.15 },
      keepUserWordsInDialogue: 'instructions',
      onSummaryFailure: 'fallback',
      summaryStyle: { format: 'structured', message: 'assistant' },
      summaryComposition: 'append',
      maxSummaryBlocks: 8,
      summaryBlockMerge: 'newest',
      cacheCostModel: true,
      splitTurnSummaries: true,
      highWaterPercent: 0.95,
      lowWaterPercent: 0.7,
      toolDurability: { defaultDurability: 'anchoring', overrides: {} },
      rehydration: {
        enabled: true,
        maxArtifactsPerTurn: 3,
        maxTokensPerArtifact: 4000,
        totalBudgetTokens: 8000,
        cooldownTurns: 2,
        autoRehydrateSensitivities: ['public', 'internal'],
      },
      recall: {
        enabled: true,
        reserveShare: 1,
        topK: 4,
        minScore: 1,
        fillFreeRoom: true,
        freeRoomTopK: 24,
        placement: 'auto',
        appendTurnShare: 0.1,
        appendWithinHighWater: false,
        appendKeepsBasisTurn: false,
        appendBasisWithinHighWater: 0.5,
        appendCommitWhenLeftOut: false,
        appendMovedShare: 0.5,
        appendRestartWithinHighWater: 1.25,
        gate: 'auto',
        quotedHits: 'skip',
      },
      compactorTools: 'stable',
    });
    expect(parsePolicy()).toEqual(policy);
    expect(parsePolicy(null)).toEqual(policy);
  });

  it('fills defaults inside partly given sections and keeps what was given', () => {
    const policy = parsePolicy({
      autoCompact: false,
      strategies: { drop: false },
      toolDurability: { overrides: { read_file: { durability: 'replayable' } } },
      rehydration: { cooldownTurns: 5 },
    });
    expect(policy.autoCompact).toBe(false);
    expect(policy.strategies).toEqual({
      abridge: true,
      externalize: true,
      summarize: true,
      clear: true,
      drop: false,
    });
    expect(policy.toolDurability).toEqual({
      defaultDurability: 'anchoring',
      overrides: { read_file: { durability: 'replayable', mustPreserveFields: [] } },
    });
    expect(policy.rehydration.cooldownTurns).toBe(5);
    expect(policy.rehydration.maxArtifactsPerTurn).toBe(3);
  });

  it('rejects out-of-range policy values with their paths', () => {
    expect(
      issuePaths(compactionPolicySchema, {
        softThresholdPercent: 0,
        keepRecentTurns: -1,
        outputReserveTokens: 1.5,
        rehydration: { maxTokensPerArtifact: 0 },
      }),
    ).toEqual(
      expect.arrayContaining([
        'softThresholdPercent',
        'keepRecentTurns',
        'outputReserveTokens',
        'rehydration.maxTokensPerArtifact',
      ]),
    );
    expect(issuePaths(compactionPolicySchema, { softThresholdPercent: 1.01 })).toEqual([
      'softThresholdPercent',
    ]);
    expect(
      issuePaths(compactionPolicySchema, { rehydration: { autoRehydrateSensitivities: ['secret'] } }),
    ).toEqual(['rehydration.autoRehydrateSensitivities.0']);
  });

  it('takes a token trigger with exactly one of threshold and fraction', () => {
    expect(triggerConfigSchema.parse({ kind: 'tokens', threshold: 4000 })).toEqual({
      kind: 'tokens',
      threshold: 4000,
    });
    expect(triggerConfigSchema.parse({ kind: 'tokens', fraction: 0.5 })).toEqual({
      kind: 'tokens',
      fraction: 0.5,
    });
    expect(
      issuePaths(compactionPolicySchema, { trigger: { kind: 'tokens', threshold: 10, fraction: 0.5 } }),
    ).toEqual(['trigger']);
    expect(issuePaths(triggerConfigSchema, { kind: 'tokens' })).toEqual(['']);
    expect(issuePaths(triggerConfigSchema, { kind: 'tokens', threshold: -10 })).toEqual(['threshold']);
    expect(issuePaths(triggerConfigSchema, { kind: 'tokens', fraction: 1.5 })).toEqual(['fraction']);
    expect(issuePaths(triggerConfigSchema, { kind: 'turns', maxTurns: -1 })).toEqual(['maxTurns']);
  });

  it('takes nested any-of and all-of triggers and rejects empty ones', () => {
    const nested = {
      kind: 'any',
      triggers: [
        { kind: 'manual' },
        {
          kind: 'all',
          triggers: [
            { kind: 'turns', maxTurns: 20 },
            { kind: 'tokens', threshold: 4000 },
          ],
        },
      ],
    };
    expect(triggerConfigSchema.parse(nested)).toEqual(nested);
    expect(issuePaths(triggerConfigSchema, { kind: 'all', triggers: [] })).toEqual(['triggers']);
    expect(
      issuePaths(triggerConfigSchema, {
        kind: 'any',
        triggers: [{ kind: 'all', triggers: [{ kind: 'turns', maxTurns: -2 }] }],
      }),
    ).toEqual(['triggers.0.triggers.0.maxTurns']);
  });
});

describe('plan and summary schemas', () => {
  it('fill the defaults of a minimal plan and summary', () => {
    const plan = compactionPlanSchema.parse({ threadId: 't1', version: 0, basedOnSeq: 0, createdAt: 'now' });
    expect(plan).toEqual({
      formatVersion: 'v1',
      threadId: 't1',
      version: 0,
      basedOnSeq: 0,
      createdAt: 'now',
      policyVersion: '1',
      externalizations: [],
      summarizations: [],
      clearings: [],
      drops: [],
      abridgements: [],
      originalTokenCount: 0,
      compactedTokenCount: 0,
    });
    expect(structuredSummarySchema.parse({})).toEqual({
      schemaVersion: 'v1',
      facts: [],
      decisions: [],
      openItems: [],
      artifacts: [],
      toolOutcomes: [],
      currentTask: null,
      currentPlan: null,
      filesRead: [],
      filesModified: [],
    });
  });

  it('reject a span without ids and a record of an unknown kind', () => {
    const base = { threadId: 't1', version: 1, basedOnSeq: 3, createdAt: 'now' };
    expect(
      issuePaths(compactionPlanSchema, {
        ...base,
        drops: [{ kind: 'drop', span: { messageIds: [], firstTurn: 0, lastTurn: 0 }, reason: 'x' }],
      }),
    ).toEqual(['drops.0.span.messageIds']);
    expect(
      issuePaths(compactionPlanSchema, {
        ...base,
        drops: [{ kind: 'summarize', span: { messageIds: ['m1'], firstTurn: 0, lastTurn: 0 }, reason: 'x' }],
      }),
    ).toEqual(['drops.0.kind']);
    expect(issuePaths(structuredSummarySchema, { schemaVersion: 'v0' })).toEqual(['schemaVersion']);
    expect(issuePaths(structuredSummarySchema, { facts: [{ text: '' }] })).toEqual(['facts.0.text']);
  });
});

describe('policyForWindow', () => {
  it('leaves a large window untouched and caps absolute sizes for a small one', async () => {
    const { policyForWindow } = await import('../src/index.js');
    const defaults = compactionPolicySchema.parse({});
    expect(policyForWindow(defaults, 200_000)).toEqual(defaults);
    const small = policyForWindow(defaults, 8000);
    expect(small).toMatchObject({
      outputReserveTokens: 2000,
      // 10% of the window, the default's proportion at 200k (ADR-0316).
      keepRecentTokens: 800,
      rehydrationReserveTokens: 400,
      safetyBufferTokens: 160,
      clearAtLeastTokens: 400,
      externalizeThresholdTokens: 400,
    });
    expect(small.keepRecentTurns).toBe(defaults.keepRecentTurns);
    // The share is the policy's: 0.25 is the cap before ADR-0316.
    expect(policyForWindow({ ...defaults, keepRecentTokensShare: 0.25 }, 8000).keepRecentTokens).toBe(2000);
    expect(policyForWindow({ ...defaults, keepRecentTokensShare: 0.25 }, 200_000).keepRecentTokens).toBe(
      20000,
    );
  });

  it('is what a folded thread carries', async () => {
    const { foldThread } = await import('../src/index.js');
    const thread = foldThread([
      {
        eventId: 'e1',
        tenantId: 't',
        threadId: 'th',
        seq: 1,
        timestamp: '2025-01-01T00:00:00.000Z',
        type: 'thread.created',
        model: 'gpt-4o-mini',
        contextWindow: 8000,
      },
    ]);
    expect(thread.policy.outputReserveTokens).toBe(2000);
  });
});
