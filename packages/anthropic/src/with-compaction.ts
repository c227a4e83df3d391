import type { Anthropic } from '@anthropic-ai/sdk';
import type { ToolDefinition } from '@compactor/core';
import type { Compactor, PreparedRequest } from '@compactor/engine';
import { resolveModelInfo } from '@compactor/tokenizer';
import { messageParamsToMessages, messagesToEvents, stableMessageId } from './message-conversion.js';

type CreateParams = Anthropic.Messages.MessageCreateParamsNonStreaming;
type RequestOptions = Parameters<Anthropic['messages']['create']>[1];

/** The part of the Anthropic client this wrapper needs (a real `Anthropic` instance has it). */
export interface MessagesClient {
  messages: {
    create(params: CreateParams, options?: RequestOptions): PromiseLike<Anthropic.Messages.Message>;
  };
}

export interface WithCompactionOptions {
  compactor: Compactor;
  /** The thread of this conversation: fixed, or chosen per call. */
  threadId: string | ((params: CreateParams) => string);
  /** The most tokens a request may take, system and tools included (default: the thread's ceiling). */
  budget?: number;
  /** The thread's context window; default the model registry's for `params.model`. */
  contextWindow?: number;
  onPrepared?: (prepared: PreparedRequest<'anthropic'>, threadId: string) => void;
  /**
   * Offer the `search_history` tool once something is compacted (ADR-0163); answer its tool_use
   * blocks with `answerSearchHistory`. Only when every tool of the call is a custom tool.
   * @defaultValue false
   */
  searchHistory?: boolean;
}

/**
 * `withCompaction(client, options).messages.create(params)`: appends the conversation in `params`
 * (stable ids), compacts when due, sends the rendered `system`, `messages` and `tools` with the
 * caller's other settings (model, max_tokens, sampling, thinking...), and appends the answer.
 */
export function withCompaction(client: MessagesClient, options: WithCompactionOptions): MessagesClient {
  return {
    messages: {
      async create(params, requestOptions) {
        const threadId = typeof options.threadId === 'function' ? options.threadId(params) : options.threadId;
        const contextWindow = options.contextWindow ?? resolveModelInfo(params.model).contextWindow;
        await options.compactor.append(threadId, [
          { eventId: 'thread.created', type: 'thread.created', model: params.model, contextWindow },
        ]);
        const messages = messageParamsToMessages(params.messages);
        if (messages.length > 0) await options.compactor.append(threadId, messagesToEvents(messages));
        const allCustom = (params.tools ?? []).every((tool) => 'input_schema' in tool);
        const prepared = await options.compactor.prepare(threadId, {
          provider: 'anthropic',
          system: systemText(params.system),
          tools: allCustom ? customTools(params.tools) : [],
          ...(options.budget !== undefined ? { budget: options.budget } : {}),
          ...(options.searchHistory && allCustom ? { searchHistoryTool: true } : {}),
        });
        options.onPrepared?.(prepared, threadId);
        const { system, messages: compacted, tools } = prepared.request;
        const response = await client.messages.create(
          {
            ...params,
            ...(system ? { system } : { system: undefined }),
            messages: compacted,
            ...(allCustom ? (tools ? { tools } : {}) : {}),
          },
          requestOptions,
        );
        const [answer] = messageParamsToMessages([{ role: 'assistant', content: answerBlocks(response) }]);
        if (answer) {
          const id = stableMessageId(messages.length, answer);
          await options.compactor.append(threadId, messagesToEvents([{ ...answer, id }]));
        }
        return response;
      },
    },
  };
}

function systemText(system: CreateParams['system']): string {
  if (system === undefined) return '';
  return typeof system === 'string' ? system : system.map((block) => block.text).join('\n\n');
}

function customTools(tools: CreateParams['tools']): ToolDefinition[] {
  return (tools ?? []).flatMap((tool) =>
    'input_schema' in tool
      ? [
          {
            name: tool.name,
            ...(tool.description ? { description: tool.description } : {}),
            inputSchema: tool.input_schema as Record<string, unknown>,
          },
        ]
      : [],
  );
}

/** The response's blocks as the next call's `MessageParam` will carry them. */
function answerBlocks(response: Anthropic.Messages.Message): Anthropic.Messages.ContentBlockParam[] {
  return response.content.flatMap((block): Anthropic.Messages.ContentBlockParam[] => {
    if (block.type === 'text') return [{ type: 'text', text: block.text }];
    if (block.type === 'tool_use')
      return [{ type: 'tool_use', id: block.id, name: block.name, input: block.input }];
    if (block.type === 'thinking')
      return [{ type: 'thinking', thinking: block.thinking, signature: block.signature }];
    return [];
  });
}
