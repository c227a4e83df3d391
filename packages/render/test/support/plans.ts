import {
  type AbridgeRecord,
  abridgeRecordOf,
  type ClearRecord,
  type CompactionPlan,
  compactionPlanSchema,
  type DropRecord,
  draftAbridgement,
  type ExternalizationRecord,
  inlineMedia,
  type StructuredSummaryInput,
  type SummarizationRecord,
  spanOf,
  structuredSummarySchema,
  type Thread,
  type ThreadMessage,
  type ToolResultPart,
} from '@compactor/core';

function messagesById(thread: Thread, ids: readonly string[]): ThreadMessage[] {
  return ids.map((id) => {
    const message = thread.messages.find((candidate) => candidate.id === id);
    if (!message) throw new Error(`fixture: no message ${id}`);
    return message;
  });
}

export function summarize(
  thread: Thread,
  ids: readonly string[],
  summary: StructuredSummaryInput,
): SummarizationRecord {
  return {
    kind: 'summarize',
    span: spanOf(messagesById(thread, ids)),
    summary: structuredSummarySchema.parse(summary),
    summaryTokenCount: 0,
    round: 1,
  };
}

export function externalize(
  thread: Thread,
  ids: readonly string[],
  artifactId: string,
  summary: StructuredSummaryInput,
  rehydrateHint = '',
  sensitivity: ExternalizationRecord['sensitivity'] = 'internal',
): ExternalizationRecord {
  return {
    kind: 'externalize',
    span: spanOf(messagesById(thread, ids)),
    artifactId,
    summary: structuredSummarySchema.parse(summary),
    rehydrateHint,
    sensitivity,
  };
}

/** Clear the tool results among `ids`, preserving what each envelope says (plus `extraKeyFields`). */
export function clear(
  thread: Thread,
  ids: readonly string[],
  extraKeyFields: Record<string, unknown> = {},
): ClearRecord {
  const messages = messagesById(thread, ids);
  const preserved = messages.flatMap((message) =>
    message.content
      .filter((part): part is ToolResultPart => part.type === 'tool_result')
      .map((part) => ({
        messageId: message.id,
        toolCallId: part.toolCallId,
        toolName: part.toolName,
        outcome: part.outcome,
        keyFields: { ...part.keyFields, ...extraKeyFields },
      })),
  );
  return { kind: 'clear', span: spanOf(messages), preserved };
}

export function drop(thread: Thread, ids: readonly string[], reason = 'old'): DropRecord {
  return { kind: 'drop', span: spanOf(messagesById(thread, ids)), reason };
}

/** What the abridge rung would write for one message (its own draft), with the paste's artifact when given. */
export function abridge(
  thread: Thread,
  id: string,
  artifactId?: string,
  edgeLines = 3,
  mediaArtifactIds: readonly string[] = [],
): AbridgeRecord {
  const message = messagesById(thread, [id])[0]!;
  const draft = draftAbridgement(message, edgeLines);
  if (!draft) throw new Error(`fixture: nothing to abridge in ${id}`);
  // Inline media kept as artifacts (ADR-0310), in order, as the rung would store them.
  const storedMedia = new Map(
    inlineMedia(draft).flatMap((medium, position) => {
      const mediumId = mediaArtifactIds[position];
      return mediumId ? [[medium, { artifactId: mediumId, sensitivity: 'internal' as const }] as const] : [];
    }),
  );
  return abridgeRecordOf(
    message,
    draft,
    artifactId ? { artifactId, rehydrateHint: 'the full pasted log', sensitivity: 'internal' } : undefined,
    storedMedia,
  );
}

export function planOf(
  thread: Thread,
  records: (SummarizationRecord | ExternalizationRecord | ClearRecord | DropRecord | AbridgeRecord)[],
  options: { basedOnSeq?: number; version?: number } = {},
): CompactionPlan {
  return compactionPlanSchema.parse({
    threadId: thread.id,
    version: options.version ?? 1,
    basedOnSeq: options.basedOnSeq ?? thread.version,
    createdAt: '2025-01-01T00:00:00.000Z',
    externalizations: records.filter((record) => record.kind === 'externalize'),
    summarizations: records.filter((record) => record.kind === 'summarize'),
    clearings: records.filter((record) => record.kind === 'clear'),
    drops: records.filter((record) => record.kind === 'drop'),
    abridgements: records.filter((record) => record.kind === 'abridge'),
  });
}

/** Ids m<from>..m<to> (the thread builder's default ids). */
export function ids(from: number, to: number): string[] {
  return Array.from({ length: to - from + 1 }, (_, index) => `m${from + index}`);
}
