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
  ValidationError,
} from '@compactor/core';

export const THREAD_BUILDER_EPOCH_MS = Date.UTC(2025, 0, 1);

/** The policy a thread.created event may carry (any subset of the policy's fields). */
export type ThreadPolicyOverrides = NonNullable<Extract<EventPayload, { type: 'thread.created' }>['policy']>;

export interface ThreadBuilderOptions {
  tenantId?: string;
  model?: string;
  contextWindow?: number;
  maxOutputTokens?: number;
  policy?: ThreadPolicyOverrides;
}

export interface MessageOptions {
  id?: string;
  pinned?: boolean;
  synthetic?: boolean;
  subagentId?: string;
  metadata?: Record<string, unknown>;
}

export interface AssistantOptions extends MessageOptions {
  toolCalls?: { id?: string; name: string; input?: unknown }[];
  reasoning?: string;
}

export interface ToolResultOptions extends MessageOptions {
  /** Defaults to the name of the call being answered; required for a result with no call. */
  toolName?: string;
  outcome?: ToolOutcome;
  keyFields?: Record<string, unknown>;
  durability?: ToolDurability;
  determinism?: DeterminismMetadata;
}

export interface BuiltThread {
  events: StoredEvent[];
  thread: Thread;
}

export class ThreadBuilder {
  private readonly events: StoredEvent[] = [];
  private readonly toolNames = new Map<string, string>();
  private messageCount = 0;
  private callCount = 0;

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

  system(text: string, options: MessageOptions = {}): this {
    return this.append('system', [{ type: 'text', text }], options);
  }

  user(text: string, options: MessageOptions = {}): this {
    return this.append('user', [{ type: 'text', text }], options);
  }

  /** `text` may be undefined for a message that only calls tools. */
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

  /** One tool message answering `toolCallId`. */
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
    };
    return this.append('tool', [part], options);
  }

  /** Append a message exactly as given (any role and parts). */
  message(message: Message): this {
    return this.event({ type: 'message.appended', message });
  }

  /** Append any event payload (thread.branched, plan.committed, lifecycle, ...). */
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

  /** The events so far (a copy) and the thread they fold into. */
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

export function threadBuilder(threadId = 't1', options: ThreadBuilderOptions = {}): ThreadBuilder {
  return new ThreadBuilder(threadId, options);
}
