import {
  type ClearRecord,
  type CompactionPlan,
  type CompactionRecord,
  compactionPlanSchema,
  isTurnStart,
  spanOf,
  structuredSummarySchema,
  type Thread,
  type ThreadMessage,
  type ToolResultPart,
} from '@compactor/core';

const KINDS = ['summarize', 'clear', 'externalize', 'summarize', 'drop'] as const;

function results(messages: readonly ThreadMessage[]): { message: ThreadMessage; part: ToolResultPart }[] {
  return messages.flatMap((message) =>
    message.content.flatMap((part) => (part.type === 'tool_result' ? [{ message, part }] : [])),
  );
}

function summaryOf(messages: readonly ThreadMessage[]) {
  const firstUser = messages.find((message) => message.role === 'user');
  const firstText = firstUser?.content.find((part) => part.type === 'text');
  return structuredSummarySchema.parse({
    currentTask: firstText?.type === 'text' ? firstText.text.slice(0, 200) : null,
    facts: [
      { text: `Span of ${messages.length} messages, turns ${messages[0]!.turn}-${messages.at(-1)!.turn}` },
    ],
    toolOutcomes: results(messages)
      .slice(0, 5)
      .map(({ part }) => ({
        toolName: part.toolName,
        toolCallId: part.toolCallId,
        outcome: part.outcome,
        keyFields: part.keyFields,
      })),
  });
}

/**
 * A 50-record plan over the thread's older part (everything before the last `keepTurns` turns):
 * 50 contiguous spans cut at turn starts, cycling summarize, clear, externalize, summarize, drop.
 */
export function benchPlan(thread: Thread, records = 50, keepTurns = 10): CompactionPlan {
  const lastTurn = thread.messages.at(-1)?.turn ?? 0;
  const older = thread.messages.filter((message) => message.turn <= lastTurn - keepTurns);
  const starts = older.flatMap((message, index) => (index > 0 && isTurnStart(message) ? [index] : []));
  const cuts = [0];
  for (let chunk = 1; chunk < records; chunk += 1) {
    const wanted = Math.floor((older.length * chunk) / records);
    const cut = starts.find((start) => start >= wanted && start > cuts.at(-1)!) ?? wanted;
    cuts.push(Math.max(cut, cuts.at(-1)! + 1));
  }
  cuts.push(older.length);
  const planned: CompactionRecord[] = [];
  for (let chunk = 0; chunk < records; chunk += 1) {
    const span = older.slice(cuts[chunk], cuts[chunk + 1]);
    if (span.length === 0) continue;
    const kind = KINDS[chunk % KINDS.length]!;
    if (kind === 'summarize') {
      planned.push({ kind, span: spanOf(span), summary: summaryOf(span), summaryTokenCount: 0, round: 1 });
    } else if (kind === 'externalize') {
      planned.push({
        kind,
        span: spanOf(span),
        artifactId: `art_${String(chunk).padStart(64, '0')}`,
        summary: summaryOf(span),
        rehydrateHint: 'read for the exact tool output',
        sensitivity: 'internal',
      });
    } else if (kind === 'clear') {
      const record: ClearRecord = {
        kind,
        span: spanOf(span),
        preserved: results(span).map(({ message, part }) => ({
          messageId: message.id,
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          outcome: part.outcome,
          keyFields: part.keyFields,
        })),
      };
      planned.push(record);
    } else {
      planned.push({ kind, span: spanOf(span), reason: 'benchmark' });
    }
  }
  return compactionPlanSchema.parse({
    threadId: thread.id,
    version: 1,
    basedOnSeq: thread.version,
    createdAt: '2025-01-01T00:00:00.000Z',
    externalizations: planned.filter((record) => record.kind === 'externalize'),
    summarizations: planned.filter((record) => record.kind === 'summarize'),
    clearings: planned.filter((record) => record.kind === 'clear'),
    drops: planned.filter((record) => record.kind === 'drop'),
  });
}
