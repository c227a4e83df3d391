/**
 * fast-check arbitraries for Compactor's domain, shared by every package's property tests.
 *
 * - `arbitraryThreadEvents` / `arbitraryThread`: a well-formed thread (thread.created, then
 *   message.appended events) whose turns start at a real user message and whose tool calls are
 *   all answered, in order, before the next assistant step.
 * - `arbitraryContentText`, `arbitraryKeyFields`, `arbitraryToolResultEnvelope`: the pieces.
 * - `arbitraryStructuredSummary`: summaries drawn from small pools so merges meet collisions.
 * - `arbitraryCompactionPlan(thread)`: records over random contiguous spans, overlaps included.
 *
 * Generation is deterministic given fast-check's seed: ids, sequence numbers and timestamps are
 * derived from positions, never from the clock or Math.random.
 */
import {
  type CompactionPlan,
  type CompactionRecord,
  type CompactionRecordKind,
  type ContentPart,
  type DeterminismMetadata,
  type EventPayload,
  foldThread,
  type Message,
  PLAN_FORMAT_VERSION,
  recordsToPlanLists,
  STRUCTURED_SUMMARY_SCHEMA_VERSION,
  type StoredEvent,
  type StructuredSummary,
  type SummaryToolOutcome,
  spanOf,
  type Thread,
  type ThreadMessage,
  type ToolDurability,
  type ToolOutcome,
  type ToolResultEnvelope,
} from '@compactor/core';
import fc from 'fast-check';

/** Fixed origin for generated timestamps: event n is stamped n seconds after it. */
export const ARBITRARY_EPOCH_MS = Date.UTC(2025, 0, 1);

const WORDS = [
  'order',
  'deploy',
  'file',
  'error',
  'budget',
  'python',
  'config',
  'retry',
  'token',
  'cache',
  'résumé',
  '日本語',
  'naïve',
  '🙂',
] as const;
/** The tool names generated threads and summaries use. */
export const TOOL_NAMES = ['read_file', 'bash', 'search', 'create_order', 'web_fetch', 'list_dir'] as const;
const KEY_FIELD_NAMES = ['order_id', 'status', 'total', 'path', 'ticket', 'error_code'] as const;
const FILE_PATHS = ['src/index.ts', 'src/db.ts', 'package.json', 'README.md', 'test/app.test.ts'] as const;
/** Small pools make separately generated summaries share facts, decisions and tool calls. */
const FACT_POOL = [
  'User prefers Python',
  'Budget is $1000',
  'Never delete production data',
  'Deploy only on Fridays',
  'Timestamps are UTC',
] as const;
const DECISION_POOL = ['Use SQLite', 'Ship behind a flag', 'Retry twice then fail'] as const;
const SUMMARY_TOOL_CALL_IDS = ['call_1', 'call_2', 'call_3', 'call_4'] as const;
const ARTIFACT_IDS = ['artifact-1', 'artifact-2', 'artifact-3'] as const;

const durabilities: readonly ToolDurability[] = ['ephemeral', 'anchoring', 'replayable', 'non_replayable'];
const outcomes: readonly ToolOutcome[] = ['success', 'failure', 'partial'];

/** `true` about once in `n` draws. */
function rarely(n: number): fc.Arbitrary<boolean> {
  return fc.oneof(
    { weight: n - 1, arbitrary: fc.constant(false) },
    { weight: 1, arbitrary: fc.constant(true) },
  );
}

/**
 * Message or summary text: mostly words (some non-ASCII), sometimes arbitrary graphemes or several lines.
 *
 * @param options - Most words per line (default 12).
 * @returns The arbitrary.
 */
export function arbitraryContentText(options: { maxWords?: number } = {}): fc.Arbitrary<string> {
  const words = fc
    .array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: options.maxWords ?? 12 })
    .map((list) => list.join(' '));
  return fc.oneof(
    { weight: 5, arbitrary: words },
    { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 30, unit: 'grapheme' }) },
    {
      weight: 1,
      arbitrary: fc.array(words, { minLength: 2, maxLength: 4 }).map((lines) => lines.join('\n')),
    },
  );
}

/**
 * A large tool output (a file dump, a log) of `minChars`..`maxChars` characters.
 *
 * @param minChars - Fewest characters.
 * @param maxChars - Most characters.
 * @returns The arbitrary.
 */
export function arbitraryHugeText(minChars = 8_000, maxChars = 40_000): fc.Arbitrary<string> {
  return fc
    .tuple(fc.integer({ min: minChars, max: maxChars }), fc.constantFrom(...WORDS))
    .map(([length, word]) => {
      const line = `${word} line of a very long tool output\n`;
      return line.repeat(Math.ceil(length / line.length)).slice(0, length);
    });
}

/**
 * Key fields as tools report them: ids, statuses, totals, flags.
 *
 * @returns The arbitrary (at most 4 fields).
 */
export function arbitraryKeyFields(): fc.Arbitrary<Record<string, unknown>> {
  return fc.dictionary(
    fc.constantFrom(...KEY_FIELD_NAMES),
    fc.oneof(fc.string({ maxLength: 12 }), fc.integer({ min: 0, max: 100_000 }), fc.boolean()),
    { maxKeys: 4, noNullPrototype: true },
  );
}

/**
 * Determinism metadata of a replayable result (content hash, etag, mtime, version; each optional).
 *
 * @returns The arbitrary.
 */
export function arbitraryDeterminismMetadata(): fc.Arbitrary<DeterminismMetadata> {
  return fc.record(
    {
      contentHash: fc.string({ minLength: 8, maxLength: 8, unit: fc.constantFrom(...'0123456789abcdef') }),
      etag: fc.string({ minLength: 1, maxLength: 8 }),
      mtime: fc.integer({ min: 0, max: 2_000_000_000 }),
      version: fc.constantFrom('1', '2', '3'),
    },
    { requiredKeys: [], noNullPrototype: true },
  );
}

/**
 * A tool result envelope. `toolName` and `toolCallId` are random unless given; the thread
 * arbitrary overrides them so each result answers its call.
 *
 * @param options - Fixed tool name and call id; `hugeResults` allows 8k–40k character contents.
 * @returns The arbitrary.
 */
export function arbitraryToolResultEnvelope(
  options: { toolName?: string; toolCallId?: string; hugeResults?: boolean } = {},
): fc.Arbitrary<ToolResultEnvelope> {
  const structured = fc.dictionary(
    fc.constantFrom(...KEY_FIELD_NAMES, 'items', 'message'),
    fc.oneof(
      fc.string({ maxLength: 20 }),
      fc.integer(),
      fc.array(fc.string({ maxLength: 8 }), { maxLength: 3 }),
    ),
    { maxKeys: 5, noNullPrototype: true },
  );
  const content = fc.oneof(
    { weight: 6, arbitrary: arbitraryContentText() },
    { weight: 3, arbitrary: structured },
    { weight: options.hugeResults ? 1 : 0, arbitrary: arbitraryHugeText() },
  );
  return fc
    .record(
      {
        toolName: options.toolName ? fc.constant(options.toolName) : fc.constantFrom(...TOOL_NAMES),
        toolCallId: options.toolCallId
          ? fc.constant(options.toolCallId)
          : fc.nat(9999).map((n) => `call_${n}`),
        outcome: fc.constantFrom(...outcomes),
        content,
        keyFields: arbitraryKeyFields(),
        durability: fc.constantFrom(...durabilities),
        determinism: arbitraryDeterminismMetadata(),
      },
      { requiredKeys: ['toolName', 'toolCallId', 'outcome', 'content', 'keyFields'], noNullPrototype: true },
    )
    .map((envelope) => envelope as ToolResultEnvelope);
}

/** The shape of generated threads. */
export interface ThreadArbitraryOptions {
  /** @defaultValue `'thread-1'` */
  threadId?: string;
  /** @defaultValue `'tenant-1'` */
  tenantId?: string;
  /** @defaultValue `'claude-sonnet-4-5'` */
  model?: string;
  /** @defaultValue 200,000 */
  contextWindow?: number;
  /** Fewest real user turns. @defaultValue 0 */
  minTurns?: number;
  /** Most real user turns. @defaultValue 6 */
  maxTurns?: number;
  /** Most assistant steps per turn. @defaultValue 3 */
  maxStepsPerTurn?: number;
  /** Most tool calls per step. @defaultValue 3 */
  maxToolCallsPerStep?: number;
  /** Each optional kind of message or part may appear when true (all default to true). */
  systemMessages?: boolean;
  syntheticMessages?: boolean;
  subagentMessages?: boolean;
  pinnedMessages?: boolean;
  reasoningParts?: boolean;
  /** Occasional 8k–40k character tool results. */
  hugeToolResults?: boolean;
}

interface ToolCallSketch {
  name: string;
  input: Record<string, unknown>;
  result: ToolResultEnvelope;
  /** The tool also returned a screenshot (ADR-0311): inline, or by URL. */
  resultImage: 'none' | 'inline' | 'url';
}

interface StepSketch {
  reasoning: string | undefined;
  text: string | undefined;
  calls: ToolCallSketch[];
  /** Answer all calls in one tool message (Anthropic style) rather than one message per call. */
  batchResults: boolean;
  pinned: boolean;
}

interface TurnSketch {
  user: string;
  userPinned: boolean;
  userImage: boolean;
  reminder: { text: string; placement: 'before' | 'after' } | undefined;
  systemNote: string | undefined;
  steps: StepSketch[];
  subagent: { prompt: string; steps: StepSketch[] } | undefined;
  finalAnswer: string | undefined;
}

interface ThreadSketch {
  system: string | undefined;
  importedSummary: string | undefined;
  turns: TurnSketch[];
}

/** A value about once in `oneIn` draws when `enabled`, otherwise never. */
function sometimes<T>(
  arbitrary: fc.Arbitrary<T>,
  enabled: boolean,
  oneIn: number,
): fc.Arbitrary<T | undefined> {
  if (!enabled) return fc.constant(undefined);
  return fc.oneof(
    { weight: oneIn - 1, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: arbitrary as fc.Arbitrary<T | undefined> },
  );
}

function threadSketch(options: ThreadArbitraryOptions): fc.Arbitrary<ThreadSketch> {
  const text = arbitraryContentText();
  const toolInput = fc.dictionary(
    fc.constantFrom('path', 'query', 'command', 'id', 'limit'),
    fc.oneof(fc.string({ maxLength: 20 }), fc.integer({ min: 0, max: 1000 })),
    { maxKeys: 3, noNullPrototype: true },
  );
  const call: fc.Arbitrary<ToolCallSketch> = fc.record({
    name: fc.constantFrom(...TOOL_NAMES),
    input: toolInput,
    result: arbitraryToolResultEnvelope({ hugeResults: options.hugeToolResults ?? true }),
    resultImage: fc.oneof(
      { weight: 10, arbitrary: fc.constant('none' as const) },
      { weight: 1, arbitrary: fc.constantFrom('inline' as const, 'url' as const) },
    ),
  });
  const step: fc.Arbitrary<StepSketch> = fc.record({
    reasoning: sometimes(text, options.reasoningParts ?? true, 3),
    text: fc.option(text, { nil: undefined, freq: 3 }),
    calls: fc.array(call, { maxLength: options.maxToolCallsPerStep ?? 3 }),
    batchResults: fc.boolean(),
    pinned: (options.pinnedMessages ?? true) ? rarely(12) : fc.constant(false),
  });
  const steps = fc.array(step, { maxLength: options.maxStepsPerTurn ?? 3 });
  const turn: fc.Arbitrary<TurnSketch> = fc.record({
    user: text,
    userPinned: (options.pinnedMessages ?? true) ? rarely(6) : fc.constant(false),
    userImage: rarely(10),
    reminder: sometimes(
      fc.record({ text, placement: fc.constantFrom('before' as const, 'after' as const) }),
      options.syntheticMessages ?? true,
      4,
    ),
    systemNote: sometimes(text, options.systemMessages ?? true, 8),
    steps,
    subagent: sometimes(fc.record({ prompt: text, steps }), options.subagentMessages ?? true, 4),
    finalAnswer: fc.option(text, { nil: undefined, freq: 2 }),
  });
  return fc.record({
    system: sometimes(text, options.systemMessages ?? true, 2),
    importedSummary: sometimes(text, options.syntheticMessages ?? true, 4),
    turns: fc.array(turn, { minLength: options.minTurns ?? 0, maxLength: options.maxTurns ?? 6 }),
  });
}

/** A 1×1 PNG, the screenshot a generated tool result may carry. */
const RESULT_IMAGE_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/** Turn a sketch into events with ids and sequence numbers derived from positions. */
function emitThread(sketch: ThreadSketch, options: ThreadArbitraryOptions): StoredEvent[] {
  const threadId = options.threadId ?? 'thread-1';
  const tenantId = options.tenantId ?? 'tenant-1';
  const events: StoredEvent[] = [];
  let messageCount = 0;
  let callCount = 0;
  const push = (payload: EventPayload) => {
    const seq = events.length + 1;
    const timestamp = new Date(ARBITRARY_EPOCH_MS + seq * 1000).toISOString();
    events.push({ eventId: `${threadId}-e${seq}`, tenantId, threadId, seq, timestamp, ...payload });
  };
  const append = (message: Omit<Message, 'id'>) => {
    messageCount += 1;
    push({ type: 'message.appended', message: { id: `${threadId}-m${messageCount}`, ...message } });
  };
  const flags = (pinned: boolean, subagentId: string | undefined) => ({
    ...(pinned ? { pinned: true } : {}),
    ...(subagentId !== undefined ? { subagentId } : {}),
  });
  const emitStep = (step: StepSketch, subagentId?: string) => {
    const content: ContentPart[] = [];
    if (step.reasoning !== undefined) content.push({ type: 'reasoning', text: step.reasoning });
    if (step.text !== undefined || step.calls.length === 0) {
      content.push({ type: 'text', text: step.text ?? 'Done.' });
    }
    const results: ContentPart[] = [];
    for (const call of step.calls) {
      callCount += 1;
      const id = `${threadId}-call${callCount}`;
      content.push({ type: 'tool_call', id, name: call.name, input: call.input });
      const media: ContentPart[] =
        call.resultImage === 'none'
          ? []
          : [
              {
                type: 'image',
                mediaType: 'image/png',
                source:
                  call.resultImage === 'inline'
                    ? { kind: 'base64', data: RESULT_IMAGE_PNG }
                    : { kind: 'url', url: 'https://example.com/screen.png' },
              },
            ];
      results.push({
        ...call.result,
        type: 'tool_result',
        toolName: call.name,
        toolCallId: id,
        ...(media.length > 0 ? { media: media as ToolResultEnvelope['media'] } : {}),
      });
    }
    append({ role: 'assistant', content, ...flags(step.pinned, subagentId) });
    if (step.batchResults && results.length > 1) {
      append({ role: 'tool', content: results, ...flags(false, subagentId) });
    } else {
      for (const result of results) append({ role: 'tool', content: [result], ...flags(false, subagentId) });
    }
  };

  push({
    type: 'thread.created',
    model: options.model ?? 'claude-sonnet-4-5',
    contextWindow: options.contextWindow ?? 200_000,
  });
  if (sketch.system !== undefined)
    append({ role: 'system', content: [{ type: 'text', text: sketch.system }] });
  if (sketch.importedSummary !== undefined) {
    // A recursive-summarization summary turn (ADR-0011): a synthetic user shadow prompt and a synthetic assistant summary.
    append({
      role: 'user',
      synthetic: true,
      content: [{ type: 'text', text: 'Summarize the conversation.' }],
    });
    append({ role: 'assistant', synthetic: true, content: [{ type: 'text', text: sketch.importedSummary }] });
  }
  sketch.turns.forEach((turn, turnIndex) => {
    const reminder = (placement: 'before' | 'after') => {
      if (turn.reminder?.placement === placement) {
        append({ role: 'user', synthetic: true, content: [{ type: 'text', text: turn.reminder.text }] });
      }
    };
    reminder('before');
    const userContent: ContentPart[] = [{ type: 'text', text: turn.user }];
    if (turn.userImage) {
      userContent.push({
        type: 'image',
        mediaType: 'image/png',
        source: { kind: 'url', url: 'https://example.com/a.png' },
      });
    }
    append({ role: 'user', content: userContent, ...flags(turn.userPinned, undefined) });
    reminder('after');
    if (turn.systemNote !== undefined)
      append({ role: 'system', content: [{ type: 'text', text: turn.systemNote }] });
    const [firstStep, ...otherSteps] = turn.steps;
    if (firstStep) emitStep(firstStep);
    if (turn.subagent) {
      const subagentId = `${threadId}-agent${turnIndex + 1}`;
      append({ role: 'user', subagentId, content: [{ type: 'text', text: turn.subagent.prompt }] });
      for (const step of turn.subagent.steps) emitStep(step, subagentId);
    }
    for (const step of otherSteps) emitStep(step);
    if (turn.finalAnswer !== undefined) {
      append({ role: 'assistant', content: [{ type: 'text', text: turn.finalAnswer }] });
    }
  });
  return events;
}

/**
 * A well-formed thread as the events a store would return (seq 1, 2, ...).
 *
 * @param options - The thread's shape.
 * @returns The arbitrary.
 */
export function arbitraryThreadEvents(options: ThreadArbitraryOptions = {}): fc.Arbitrary<StoredEvent[]> {
  return threadSketch(options).map((sketch) => emitThread(sketch, options));
}

/**
 * A well-formed thread's events, with the folded thread alongside.
 *
 * @param options - The thread's shape.
 * @returns The arbitrary.
 */
export function arbitraryThread(
  options: ThreadArbitraryOptions = {},
): fc.Arbitrary<{ events: StoredEvent[]; thread: Thread }> {
  return arbitraryThreadEvents(options).map((events) => ({ events, thread: foldThread(events) }));
}

/**
 * A tool outcome as a summary records it; call ids come from a small pool.
 *
 * @returns The arbitrary.
 */
export function arbitrarySummaryToolOutcome(): fc.Arbitrary<SummaryToolOutcome> {
  return fc
    .record(
      {
        toolName: fc.constantFrom(...TOOL_NAMES),
        toolCallId: fc.constantFrom(...SUMMARY_TOOL_CALL_IDS),
        outcome: fc.constantFrom(...outcomes),
        keyFields: arbitraryKeyFields(),
        errorMessage: arbitraryContentText({ maxWords: 4 }),
      },
      { requiredKeys: ['toolName', 'outcome', 'keyFields'], noNullPrototype: true },
    )
    .map((outcome) => outcome as SummaryToolOutcome);
}

/**
 * A structured summary. Texts, decisions, tool call ids and artifact ids come partly from small
 * pools, so two summaries often mention the same things (what merges must reconcile).
 *
 * @param options - Most items per list (default 4).
 * @returns The arbitrary.
 */
export function arbitraryStructuredSummary(
  options: { maxItems?: number } = {},
): fc.Arbitrary<StructuredSummary> {
  const maxLength = options.maxItems ?? 4;
  const text = arbitraryContentText({ maxWords: 6 });
  const pooled = (pool: readonly string[]) => fc.oneof(fc.constantFrom(...pool), text);
  const fact = fc
    .record(
      { text: pooled(FACT_POOL), pinned: fc.boolean(), sourceMessageId: fc.constantFrom('m1', 'm2', 'm3') },
      { requiredKeys: ['text', 'pinned'], noNullPrototype: true },
    )
    .map((value) => value as StructuredSummary['facts'][number]);
  const decision = fc
    .record(
      { decision: pooled(DECISION_POOL), rationale: text, turn: fc.nat(50) },
      { requiredKeys: ['decision'], noNullPrototype: true },
    )
    .map((value) => value as StructuredSummary['decisions'][number]);
  const openItem = fc
    .record(
      {
        description: pooled(['Write tests', 'Fix the build']),
        context: text,
        priority: fc.constantFrom('high', 'medium', 'low'),
      },
      { requiredKeys: ['description', 'priority'], noNullPrototype: true },
    )
    .map((value) => value as StructuredSummary['openItems'][number]);
  const artifact = fc.record({
    artifactId: fc.constantFrom(...ARTIFACT_IDS),
    description: text,
    rehydrateHint: text,
  });
  return fc.record({
    schemaVersion: fc.constant(STRUCTURED_SUMMARY_SCHEMA_VERSION),
    facts: fc.array(fact, { maxLength }),
    decisions: fc.array(decision, { maxLength }),
    openItems: fc.array(openItem, { maxLength }),
    artifacts: fc.array(artifact, { maxLength }),
    toolOutcomes: fc.array(arbitrarySummaryToolOutcome(), { maxLength }),
    currentTask: fc.option(text, { nil: null }),
    currentPlan: fc.option(fc.array(text, { minLength: 1, maxLength: 3 }), { nil: null }),
    filesRead: fc.array(fc.constantFrom(...FILE_PATHS), { maxLength }),
    filesModified: fc.array(fc.constantFrom(...FILE_PATHS), { maxLength }),
  });
}

function recordOver(kind: CompactionRecordKind, messages: ThreadMessage[]): fc.Arbitrary<CompactionRecord> {
  const span = spanOf(messages);
  switch (kind) {
    case 'summarize':
      return fc.record({
        kind: fc.constant('summarize' as const),
        span: fc.constant(span),
        summary: arbitraryStructuredSummary({ maxItems: 2 }),
        summaryTokenCount: fc.nat(2000),
        round: fc.integer({ min: 1, max: 5 }),
      });
    case 'externalize':
      return fc.record({
        kind: fc.constant('externalize' as const),
        span: fc.constant(span),
        artifactId: fc.uuid().map((uuid) => `artifact-${uuid}`),
        summary: arbitraryStructuredSummary({ maxItems: 2 }),
        rehydrateHint: fc.constant('read if you need the full content'),
        sensitivity: fc.constantFrom(
          'public' as const,
          'internal' as const,
          'confidential' as const,
          'restricted' as const,
        ),
      });
    case 'clear': {
      // What a planner would keep of each tool result in the span.
      const preserved = messages.flatMap((message) =>
        message.content.flatMap((part) =>
          part.type === 'tool_result'
            ? [
                {
                  messageId: message.id,
                  toolCallId: part.toolCallId,
                  toolName: part.toolName,
                  outcome: part.outcome,
                  keyFields: part.keyFields,
                },
              ]
            : [],
        ),
      );
      return fc.constant({ kind: 'clear' as const, span, preserved });
    }
    case 'drop':
      return fc
        .constantFrom('over budget', 'sliding window')
        .map((reason) => ({ kind: 'drop' as const, span, reason }));
    case 'abridge': {
      // One message; any part index, even one naming a tool call (the renderer replaces only media and text).
      const message = messages[0]!;
      const indexes = Math.max(1, message.content.length);
      return fc
        .uniqueArray(
          fc.record({
            index: fc.nat(indexes - 1),
            reason: fc.constantFrom('media' as const, 'paste' as const, 'result-media' as const),
            text: fc.constantFrom('[Image replaced v1: image/png]\nCaption: a cat\nSource: x.png', 'clipped'),
          }),
          { minLength: 1, maxLength: indexes, selector: (part) => part.index },
        )
        .map((parts) => ({
          kind: 'abridge' as const,
          span: spanOf([message]),
          parts: parts.sort((left, right) => left.index - right.index),
        }));
    }
  }
}

/**
 * A plan over `thread`: up to `maxRecords` records, each over a random contiguous span of at most
 * `maxSpanLength` messages. Spans are independent, so records overlap often (normalization's job).
 *
 * @param thread - The thread the plan is over.
 * @param options - Most records, longest span (default 6), and the record kinds drawn (default all five).
 * @returns The arbitrary.
 */
export function arbitraryCompactionPlan(
  thread: Thread,
  options: { maxRecords?: number; maxSpanLength?: number; kinds?: readonly CompactionRecordKind[] } = {},
): fc.Arbitrary<CompactionPlan> {
  const messages = thread.messages;
  const kinds = options.kinds ?? ['summarize', 'externalize', 'clear', 'drop', 'abridge'];
  const record =
    messages.length === 0 || kinds.length === 0
      ? fc.constant(undefined)
      : fc
          .tuple(fc.constantFrom(...kinds), fc.nat(messages.length - 1))
          .chain(([kind, start]) =>
            fc
              .integer({ min: 1, max: Math.min(messages.length - start, options.maxSpanLength ?? 6) })
              .chain((length) => recordOver(kind, messages.slice(start, start + length))),
          );
  return fc
    .tuple(fc.array(record, { maxLength: options.maxRecords ?? 6 }), fc.nat(20))
    .map(([records, version]) => ({
      formatVersion: PLAN_FORMAT_VERSION,
      threadId: thread.id,
      version,
      basedOnSeq: thread.version,
      createdAt: new Date(ARBITRARY_EPOCH_MS).toISOString(),
      policyVersion: thread.policy.version,
      ...recordsToPlanLists(records.filter((value): value is CompactionRecord => value !== undefined)),
      originalTokenCount: 0,
      compactedTokenCount: 0,
    }));
}
