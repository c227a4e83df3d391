import type {
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3FunctionTool,
  LanguageModelV3Middleware,
  LanguageModelV3StreamPart,
} from '@ai-sdk/provider';
import type { ContentPart, Message, ToolDefinition } from '@compactor/core';
import type { Compactor, PreparedRequest } from '@compactor/engine';
import { messagesToEvents, promptToMessages, requestToPrompt } from './prompt-conversion.js';
import { stableMessageId } from './stable-ids.js';
import { ensureThread, type ThreadOptions } from './thread-setup.js';

export interface CompactionMiddlewareOptions extends ThreadOptions {
  compactor: Compactor;
  /** The thread this agent's conversation is logged in: fixed, or chosen per call. */
  threadId: string | ((params: LanguageModelV3CallOptions) => string);
  /** The most tokens a prompt may take, system and tools included (default: the thread's window less reserves). */
  budget?: number;
  /** Called with what each prepare did (tokens, plan, compaction), for logs and tests. */
  onPrepared?: (prepared: PreparedRequest<'ai-sdk'>, threadId: string) => void;
}

/**
 * A `LanguageModelV3Middleware` for `wrapLanguageModel({ model, middleware })`. Before each model
 * call it appends the messages the call carries that the log lacks (stable ids make this
 * idempotent), lets the compactor compact when due, and replaces `params.prompt` with the rendered,
 * within-budget prompt. After a generate call it appends the assistant's answer, so the log is
 * complete even after the last step. The caller's own message list is never edited.
 */
export function compactionMiddleware(options: CompactionMiddlewareOptions): LanguageModelV3Middleware {
  // The original conversation length of each transformed call, for the answer's position.
  const positions = new WeakMap<LanguageModelV3CallOptions, { threadId: string; position: number }>();
  return {
    specificationVersion: 'v3',
    async transformParams({ params }) {
      const threadId = typeof options.threadId === 'function' ? options.threadId(params) : options.threadId;
      await ensureThread(options.compactor, threadId, options);
      const { system, messages } = promptToMessages(params.prompt);
      if (messages.length > 0) await options.compactor.append(threadId, messagesToEvents(messages));
      const prepared = await options.compactor.prepare(threadId, {
        provider: 'ai-sdk',
        system,
        tools: functionTools(params.tools),
        ...(options.budget !== undefined ? { budget: options.budget } : {}),
      });
      options.onPrepared?.(prepared, threadId);
      const transformed = { ...params, prompt: requestToPrompt(prepared.request) };
      positions.set(transformed, { threadId, position: messages.length });
      return transformed;
    },
    async wrapGenerate({ doGenerate, params }) {
      const result = await doGenerate();
      const at = positions.get(params);
      const answer = at && assistantMessage(at.position, result.content);
      if (at && answer) await options.compactor.append(at.threadId, messagesToEvents([answer]));
      return result;
    },
    async wrapStream({ doStream, params }) {
      const { stream, ...rest } = await doStream();
      const at = positions.get(params);
      if (!at) return { stream, ...rest };
      const assembled = new StreamedAnswer();
      const appendOnce = new TransformStream<LanguageModelV3StreamPart, LanguageModelV3StreamPart>({
        transform(chunk, controller) {
          assembled.add(chunk);
          controller.enqueue(chunk);
        },
        // Only a stream that finished cleanly is appended: a failed or aborted answer is not a message.
        async flush() {
          const answer = assembled.failed ? null : assistantMessage(at.position, assembled.content());
          if (answer) await options.compactor.append(at.threadId, messagesToEvents([answer]));
        },
      });
      return { stream: stream.pipeThrough(appendOnce), ...rest };
    },
  };
}

/** Text blocks and tool calls of a streamed answer, in the order they started. */
class StreamedAnswer {
  private readonly parts: LanguageModelV3Content[] = [];
  private readonly texts = new Map<string, { type: 'text'; text: string }>();
  failed = false;

  add(chunk: LanguageModelV3StreamPart): void {
    if (chunk.type === 'text-start') {
      const part = { type: 'text' as const, text: '' };
      this.texts.set(chunk.id, part);
      this.parts.push(part);
    } else if (chunk.type === 'text-delta') {
      const part = this.texts.get(chunk.id);
      if (part) part.text += chunk.delta;
    } else if (chunk.type === 'tool-call') {
      this.parts.push(chunk);
    } else if (chunk.type === 'error') {
      this.failed = true;
    }
  }

  content(): LanguageModelV3Content[] {
    return this.parts;
  }
}

/** The tools of a call as Compactor counts them (provider-defined tools have no schema to count). */
export function functionTools(tools: LanguageModelV3CallOptions['tools']): ToolDefinition[] {
  return (tools ?? [])
    .filter((tool): tool is LanguageModelV3FunctionTool => tool.type === 'function')
    .map((tool) => ({
      name: tool.name,
      ...(tool.description ? { description: tool.description } : {}),
      inputSchema: tool.inputSchema as Record<string, unknown>,
    }));
}

/** A model's answer as the message the next step's prompt will carry (same canonical content, same id). */
export function assistantMessage(
  position: number,
  content: readonly LanguageModelV3Content[],
): Message | null {
  const parts: ContentPart[] = [];
  for (const part of content) {
    if (part.type === 'text' && part.text !== '') parts.push({ type: 'text', text: part.text });
    if (part.type === 'tool-call' && part.providerExecuted !== true) {
      parts.push({
        type: 'tool_call',
        id: part.toolCallId,
        name: part.toolName,
        input: parseInput(part.input),
      });
    }
  }
  if (parts.length === 0) return null;
  return {
    id: stableMessageId(position, { role: 'assistant', content: parts }),
    role: 'assistant',
    content: parts,
  };
}

function parseInput(input: string): unknown {
  try {
    return JSON.parse(input);
  } catch {
    return input;
  }
}
