/**
 * The README's example, compiled by the workspace typecheck and run by
 * `test/readme-example.unit.test.ts`, so the documentation cannot drift from the API.
 */
import {
  actionFor,
  availableForMessages,
  buildTrigger,
  countUserTurns,
  emptyPlan,
  foldThread,
  type Message,
  mergeSummaries,
  normalizePlan,
  renderSummary,
  type StoredEvent,
  slidingWindow,
  structuredSummarySchema,
  tokenBudget,
} from '@compactor/core';

const at = (second: number) => new Date(Date.UTC(2025, 0, 1, 0, 0, second)).toISOString();

function appended(seq: number, message: Message): StoredEvent {
  const base = { eventId: `e${seq}`, tenantId: 'acme', threadId: 'demo', seq, timestamp: at(seq) };
  return { ...base, type: 'message.appended', message };
}

export function coreQuickstart() {
  // 1. The log: stored events, folded into a thread (turns, tool pairs, policy).
  const events: StoredEvent[] = [
    {
      eventId: 'e0',
      tenantId: 'acme',
      threadId: 'demo',
      seq: 1,
      timestamp: at(1),
      type: 'thread.created',
      model: 'claude-sonnet-4-5',
      contextWindow: 200_000,
    },
    appended(2, {
      id: 'm1',
      role: 'user',
      pinned: true,
      content: [{ type: 'text', text: 'Never change the public API.' }],
    }),
    appended(3, { id: 'm2', role: 'assistant', content: [{ type: 'text', text: 'Understood.' }] }),
    appended(4, { id: 'm3', role: 'user', content: [{ type: 'text', text: 'Refactor the importer.' }] }),
    appended(5, {
      id: 'm4',
      role: 'assistant',
      content: [{ type: 'tool_call', id: 'c1', name: 'read_file', input: { path: 'src/importer.ts' } }],
    }),
    appended(6, {
      id: 'm5',
      role: 'tool',
      content: [
        {
          type: 'tool_result',
          toolName: 'read_file',
          toolCallId: 'c1',
          outcome: 'success',
          content: 'export function importTranscript() {}',
          keyFields: { path: 'src/importer.ts' },
        },
      ],
    }),
    appended(7, { id: 'm6', role: 'user', content: [{ type: 'text', text: 'Now add tests.' }] }),
  ];
  const thread = foldThread(events);

  // 2. A deterministic strategy produces a plan (pure data, by message id); the log is untouched.
  const countTokens = (message: Message) => JSON.stringify(message.content).length / 4;
  const window = slidingWindow(
    thread,
    { maxEvents: 2 },
    {
      countTokens,
      basePlan: emptyPlan(thread.id, at(8), thread.version),
      now: at(8),
    },
  );
  const normalized = normalizePlan(window.plan);

  // 3. Chained summaries: the pinned fact survives the merge verbatim, whatever the newer summary says.
  const older = structuredSummarySchema.parse({
    facts: [{ text: 'Never change the public API.', pinned: true }],
  });
  const newer = structuredSummarySchema.parse({ currentTask: 'Add tests for the importer' });
  const merged = mergeSummaries(older, newer);

  // 4. Budget arithmetic: what the conversation may use in a 128k window (ADR-0009's remainder rule).
  const budget = tokenBudget({
    maxInputTokens: 128_000,
    softThresholdPercent: 0.8,
    thresholdAppliesTo: 'remainder',
    systemPromptTokens: 2_000,
    outputReserveTokens: 4_000,
    safetyBufferTokens: 5_000,
    rehydrationReserveTokens: 0,
  });

  // 5. Triggers are data in the thread's policy; this one fires above two user turns.
  const trigger = buildTrigger({ kind: 'turns', maxTurns: 2 });
  const decision = trigger.evaluate({
    messages: thread.messages,
    messageTokens: 0,
    contextWindow: thread.contextWindow,
  });

  return {
    userTurns: countUserTurns(thread.messages),
    keptIds: window.keptIds,
    archivedIds: window.archivedIds,
    actionOfFirstMessage: actionFor(normalized, 'm1'),
    actionOfToolCall: actionFor(normalized, 'm4'),
    mergedSummary: renderSummary(merged),
    availableForMessages: availableForMessages(budget),
    triggerFires: decision.fire,
  };
}
