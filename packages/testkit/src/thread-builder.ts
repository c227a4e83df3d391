/**
 * A small fluent builder for hand-written thread fixtures:
 *
 *   const { events, thread } = threadBuilder('t1')
 *     .user('read the config')
 *     .assistant('reading', { toolCalls: [{ id: 'c1', name: 'read_file', input: { path: 'a.json' } }] })
 *     .toolResult('c1', '{"port": 8080}', { keyFields: { port: 8080 } })
 *     .assistant('the port is 8080')
 *     .build();
 *
 * Message ids are m1, m2, ... and tool call ids call_1, call_2, ... unless given; event n has
 * seq n and a timestamp n seconds after a fixed epoch, so fixtures are byte-stable.
 */
import {
  type ContentPart,
  type DeterminismMetadata,
  type EventPayload,
  foldThread,
  type Message,
  type StoredEvent,
  type Thread,
  type ToolDurability,
  type ToolOutcome,
  type ToolResultPart,
  ValidationError,
} from '@compactor/core';

/** Event n's timestamp is this plus n seconds. */
export const THREAD_BUILDER_EPOCH_MS = Date.UTC(2025, 0, 1);

/** The policy a thread.created event may carry (any subset of the policy's fields). */
export type ThreadPolicyOverrides = NonNullable<Extract<EventPayload, { type: 'thread.created' }>['policy']>;

/** The `thread.created` event's settings. */
export interface ThreadBuilderOptions {
  /** @defaultValue `'tenant-1'` */
  tenantId?: string;
  /** @defaultValue `'claude-sonnet-4-5'` */
  model?: string;
  /** @defaultValue 200,000 */
  contextWindow?: number;
  maxOutputTokens?: number;
  policy?: ThreadPolicyOverrides;
}

/** Flags and id of one message. */
export interface MessageOptions {
  /** @defaultValue `m<n>`, n counting messages */
  id?: string;
  pinned?: boolean;
  synthetic?: boolean;
  subagentId?: string;
  metadata?: Record<string, unknown>;
}

/** An assistant message's tool calls and reasoning. */
export interface AssistantOptions extends MessageOptions {
  /** Calls without an id get `call_<n>`; input defaults to `{}`. */
  toolCalls?: { id?: string; name: string; input?: unknown }[];
  /** Added as a reasoning part before the text. */
  reasoning?: string;
}

/** A tool result's name, outcome, key fields and replay metadata. */
export interface ToolResultOptions extends MessageOptions {
  /** Defaults to the name of the call being answered; required for a result with no call. */
  toolName?: string;
  /** @defaultValue `'success'` */
  outcome?: ToolOutcome;
  /** @defaultValue `{}` */
  keyFields?: Record<string, unknown>;
  durability?: ToolDurability;
  determinism?: DeterminismMetadata;
  /** Images and documents the tool returned (ADR-0311). */
  media?: ToolResultPart['media'];
}

/** A fixture's stored events and the thread they fold into. */
export interface BuiltThread {
  events: StoredEvent[];
  thread: Thread;
}

/** Builds a thread fixture event by event (see the module comment). */
export class ThreadBuilder {
  private readonly events: StoredEvent[] = [];
  private readonly toolNames = new Map<string, string>();
  private messageCount = 0;
  private callCount = 0;

  /**
   * Start a thread with its `thread.created` event.
   *
   * @param threadId - The thread's id.
   * @param options - The thread's settings.
   */
  constructor(
    readonly threadId: string,
    private readonly options: ThreadBuilderOptions = {},
  ) {
    this.event({
      type: 'thread.created',
      model: options.model ?? 'claude-sonnet-4-5',
      contextWindow: options.contextWindow ?? 200_000,
      ...(options.maxOutputTokens !== undefined ? { maxOutputTokens: options.maxOutputTokens } : {}),
      ...(options.policy !== undefined ? { policy: options.policy } : {}),
    });
  }

  /**
   * Append a system message.
   *
   * @param text - Its text.
   * @param options - Id and flags.
   * @returns The builder.
   */
  system(text: string, options: MessageOptions = {}): this {
    return this.append('system', [{ type: 'text', text }], options);
  }

  /**
   * Append a user message.
   *
   * @param text - Its text.
   * @param options - Id and flags.
   * @returns The builder.
   */
  user(text: string, options: MessageOptions = {}): this {
    return this.append('user', [{ type: 'text', text }], options);
  }

  /**
   * Append an assistant message.
   *
   * @param text - Its text; undefined for a message that only calls tools.
   * @param options - Tool calls, reasoning, id and flags.
   * @returns The builder.
   */
  assistant(text: string | undefined, options: AssistantOptions = {}): this {
    const content: ContentPart[] = [];
    if (options.reasoning !== undefined) content.push({ type: 'reasoning', text: options.reasoning });
    if (text !== undefined) content.push({ type: 'text', text });
    for (const call of options.toolCalls ?? []) {
      this.callCount += 1;
      const id = call.id ?? `call_${this.callCount}`;
      this.toolNames.set(id, call.name);
      content.push({ type: 'tool_call', id, name: call.name, input: call.input ?? {} });
    }
    return this.append('assistant', content, options);
  }

  /**
   * Append one tool message answering `toolCallId`.
   *
   * @param toolCallId - The call answered.
   * @param content - The result's content.
   * @param options - Tool name, outcome, key fields, durability, determinism, id and flags.
   * @returns The builder.
   * @throws ValidationError when no call has this id and no `toolName` is given.
   */
  toolResult(
    toolCallId: string,
    content: string | Record<string, unknown>,
    options: ToolResultOptions = {},
  ): this {
    const toolName = options.toolName ?? this.toolNames.get(toolCallId);
    if (toolName === undefined) {
      throw new ValidationError(
        `no tool call ${toolCallId} in this fixture: pass toolName for an orphan result`,
      );
    }
    const part: ContentPart = {
      type: 'tool_result',
      toolName,
      toolCallId,
      outcome: options.outcome ?? 'success',
      content,
      keyFields: options.keyFields ?? {},
      ...(options.durability !== undefined ? { durability: options.durability } : {}),
      ...(options.determinism !== undefined ? { determinism: options.determinism } : {}),
      ...(options.media !== undefined ? { media: options.media } : {}),
    };
    return this.append('tool', [part], options);
  }

  /**
   * Append a message exactly as given (any role and parts).
   *
   * @param message - The message.
   * @returns The builder.
   */
  message(message: Message): this {
    return this.event({ type: 'message.appended', message });
  }

  /**
   * Append any event payload (thread.branched, plan.committed, lifecycle, ...).
   *
   * @param payload - The event's type and fields.
   * @returns The builder.
   */
  event(payload: EventPayload): this {
    const seq = this.events.length + 1;
    this.events.push({
      eventId: `${this.threadId}-e${seq}`,
      tenantId: this.options.tenantId ?? 'tenant-1',
      threadId: this.threadId,
      seq,
      timestamp: new Date(THREAD_BUILDER_EPOCH_MS + seq * 1000).toISOString(),
      ...payload,
    });
    return this;
  }

  /**
   * Finish the fixture (the builder may go on).
   *
   * @returns The events so far (a copy) and the thread they fold into.
   */
  build(): BuiltThread {
    const events = structuredClone(this.events);
    return { events, thread: foldThread(events) };
  }

  private append(role: Message['role'], content: ContentPart[], options: MessageOptions): this {
    this.messageCount += 1;
    const message: Message = {
      id: options.id ?? `m${this.messageCount}`,
      role,
      content,
      ...(options.synthetic ? { synthetic: true } : {}),
      ...(options.pinned ? { pinned: true } : {}),
      ...(options.subagentId !== undefined ? { subagentId: options.subagentId } : {}),
      ...(options.metadata !== undefined ? { metadata: options.metadata } : {}),
    };
    return this.message(message);
  }
}

/**
 * Start a thread fixture.
 *
 * @param threadId - The thread's id.
 * @param options - The thread's settings.
 * @returns The builder.
 */
export function threadBuilder(threadId = 't1', options: ThreadBuilderOptions = {}): ThreadBuilder {
  return new ThreadBuilder(threadId, options);
}

/**
 * The same thread with its messages replaced: the log's `thread.created` event, then one
 * `message.appended` per message in order (event id = message id, seqs following the created event's).
 * Round-trip tests use it to fold converted messages back into a thread (convert → render → convert).
 *
 * @param events - A log holding a `thread.created` event.
 * @param messages - The messages of the new log.
 * @returns The new log.
 */
export function rethread(events: readonly StoredEvent[], messages: readonly Message[]): StoredEvent[] {
  const created = events.find((event) => event.type === 'thread.created');
  if (!created) throw new Error('rethread: the log has no thread.created event');
  return [
    created,
    ...messages.map(
      (message, index): StoredEvent => ({
        eventId: message.id,
        tenantId: created.tenantId,
        threadId: created.threadId,
        seq: created.seq + 1 + index,
        timestamp: created.timestamp,
        type: 'message.appended',
        message,
      }),
    ),
  ];
}
