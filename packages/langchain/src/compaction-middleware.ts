import type { ToolDefinition } from '@compactor/core';
import type { Compactor, PreparedRequest } from '@compactor/engine';
import { resolveModelInfo } from '@compactor/tokenizer';
import { toJsonSchema } from '@langchain/core/utils/json_schema';
import { AIMessage, createMiddleware } from 'langchain';
import {
  baseMessagesToMessages,
  messagesToEvents,
  requestToBaseMessages,
  stableMessageId,
} from './message-conversion.js';

export interface CompactionMiddlewareOptions {
  compactor: Compactor;
  threadId: string;
  /** The model the thread is counted for. Default `claude-sonnet-4-5`. */
  model?: string;
  /** The thread's context window; default the model registry's. */
  contextWindow?: number;
  /** The most tokens a request may take, system and tools included (default: the thread's ceiling). */
  budget?: number;
  onPrepared?: (prepared: PreparedRequest<'ai-sdk'>) => void;
}

/**
 * A `createAgent` middleware: `wrapModelCall` appends the agent's messages the log lacks, lets the
 * compactor compact when due, and calls the model with the compacted messages. The agent's state
 * is not edited (the graph keeps every message); only the request to the model changes.
 */
export function compactionMiddleware(options: CompactionMiddlewareOptions) {
  const model = options.model ?? 'claude-sonnet-4-5';
  return createMiddleware({
    name: 'CompactorMiddleware',
    wrapModelCall: async (request, handler) => {
      const contextWindow = options.contextWindow ?? resolveModelInfo(model).contextWindow;
      await options.compactor.append(options.threadId, [
        { eventId: 'thread.created', type: 'thread.created', model, contextWindow },
      ]);
      const messages = baseMessagesToMessages(request.messages);
      if (messages.length > 0) await options.compactor.append(options.threadId, messagesToEvents(messages));
      const prepared = await options.compactor.prepare(options.threadId, {
        provider: 'ai-sdk',
        system: request.systemMessage?.text ?? '',
        tools: toolDefinitions(request.tools),
        ...(options.budget !== undefined ? { budget: options.budget } : {}),
      });
      options.onPrepared?.(prepared);
      const response = await handler({ ...request, messages: requestToBaseMessages(prepared.request) });
      if (AIMessage.isInstance(response)) {
        const [answer] = baseMessagesToMessages([response]);
        if (answer) {
          const id = stableMessageId(messages.length, answer);
          await options.compactor.append(options.threadId, messagesToEvents([{ ...answer, id }]));
        }
      }
      return response;
    },
  });
}

/** The agent's tools as Compactor counts them (JSON Schema from each tool's own schema). */
function toolDefinitions(tools: readonly unknown[]): ToolDefinition[] {
  return tools.flatMap((tool) => {
    const candidate = tool as { name?: unknown; description?: unknown; schema?: unknown };
    if (typeof candidate.name !== 'string') return [];
    const inputSchema = candidate.schema
      ? (toJsonSchema(candidate.schema as Parameters<typeof toJsonSchema>[0]) as Record<string, unknown>)
      : { type: 'object' };
    return [
      {
        name: candidate.name,
        ...(typeof candidate.description === 'string' ? { description: candidate.description } : {}),
        inputSchema,
      },
    ];
  });
}
