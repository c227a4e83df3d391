import type { Anthropic } from '@anthropic-ai/sdk';
import { BetaMessageStream } from '@anthropic-ai/sdk/lib/BetaMessageStream';
import { MessageStream } from '@anthropic-ai/sdk/lib/MessageStream';
import type { Message as CompactorMessage, ToolDefinition } from '@compactor/core';
import type { Compactor, PreparedRequest } from '@compactor/engine';
import { resolveModelInfo } from '@compactor/tokenizer';
import { messageParamsToMessages, messagesToEvents, stableMessageId } from './message-conversion.js';
import { assembleStreamedMessage } from './stream-assembly.js';

type CreateParams = Anthropic.Messages.MessageCreateParamsNonStreaming;
/** `messages.stream` params (structured-output parsing, `output_config.format` helpers, is not wrapped). */
type StreamParams = Omit<Anthropic.Messages.MessageCreateParamsStreaming, 'stream'>;
type StreamingParams = Anthropic.Messages.MessageCreateParamsStreaming;
type RequestOptions = Parameters<Anthropic['messages']['create']>[1];
type BetaCreateParams = Anthropic.Beta.Messages.MessageCreateParamsNonStreaming;
type BetaStreamParams = Omit<Anthropic.Beta.Messages.MessageCreateParamsStreaming, 'stream'>;
type BetaStreamingParams = Anthropic.Beta.Messages.MessageCreateParamsStreaming;

/** The part of the Anthropic client this wrapper needs: a real `Anthropic` instance has it. */
export interface MessagesClient {
  messages: Pick<Anthropic['messages'], 'create'>;
  /**
   * The beta Messages API: needed for `beta.messages.create` and `.stream` (server-side compaction
   * blocks, ADR-0251).
   */
  beta?: { messages: Pick<Anthropic['beta']['messages'], 'create'> };
}

/** What `withCompaction` returns: `messages.create` and `messages.stream`, as on the SDK. */
export interface CompactedMessagesClient {
  messages: {
    create(params: CreateParams, options?: RequestOptions): Promise<Anthropic.Messages.Message>;
    stream(params: StreamParams, options?: RequestOptions): MessageStream;
  };
  /**
   * `beta.messages.create`, as on the SDK: the conversation may hold Anthropic's own `compaction` blocks,
   * kept and sent back verbatim, the newest opening the request (ADR-0250); the answer's blocks are
   * appended as they came. `stream` is the same over the SDK's `BetaMessageStream`, the answer
   * appended once, complete, as `messages.stream` does. Needs the client's `beta`.
   */
  beta: {
    messages: {
      create(
        params: BetaCreateParams,
        options?: RequestOptions,
      ): Promise<Anthropic.Beta.Messages.BetaMessage>;
      stream(params: BetaStreamParams, options?: RequestOptions): BetaMessageStream;
    };
  };
}

export interface WithCompactionOptions {
  compactor: Compactor;
  /** The thread of this conversation: fixed, or chosen per call. */
  threadId: string | ((params: CreateParams | StreamParams | BetaCreateParams | BetaStreamParams) => string);
  /** The most tokens a request may take, system and tools included (default: the thread's ceiling). */
  budget?: number;
  /** The thread's context window; default the model registry's for `params.model`. */
  contextWindow?: number;
  /**
   * Offer the `search_history` tool once something is compacted (ADR-0163); answer its tool_use
   * blocks with `answerSearchHistory`. Only when every tool of the call is a custom tool.
   * @defaultValue false
   */
  searchHistory?: boolean;
  onPrepared?: (prepared: PreparedRequest<'anthropic'>, threadId: string) => void;
}

interface PreparedCall<P> {
  threadId: string;
  /** How many messages the caller's history converted to: the answer's position. */
  historyLength: number;
  /** The caller's params with the rendered `system`, `messages` and `tools`. */
  body: P;
}

/**
 * `withCompaction(client, options).messages.create(params)` and `.stream(params)`: appends the
 * conversation in `params` (stable ids), compacts when due, sends the rendered `system`,
 * `messages` and `tools` with the caller's other settings (model, max_tokens, sampling,
 * thinking...), and appends the answer. A streamed answer is appended once, complete, after the
 * stream's `message_stop` and before `finalMessage()` resolves; a stream that fails or is aborted
 * appends nothing.
 *
 * @param client - An `Anthropic` client (or anything with its `messages.create`).
 * @param options - The compactor, the thread, the budget.
 * @returns A client whose `messages.create` and `messages.stream` send compacted requests.
 */
export function withCompaction(
  client: MessagesClient,
  options: WithCompactionOptions,
): CompactedMessagesClient {
  async function prepareCall<
    P extends CreateParams | StreamingParams | BetaCreateParams | BetaStreamingParams,
  >(params: P): Promise<PreparedCall<P>> {
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
      tools: allCustom ? customTools(params.tools as CreateParams['tools']) : [],
      ...(options.budget !== undefined ? { budget: options.budget } : {}),
      ...(options.searchHistory && allCustom ? { searchHistoryTool: true } : {}),
    });
    options.onPrepared?.(prepared, threadId);
    const { system, messages: compacted, tools } = prepared.request;
    const body: P = {
      ...params,
      ...(system ? { system } : { system: undefined }),
      messages: compacted,
      ...(allCustom ? (tools ? { tools } : {}) : {}),
    };
    return { threadId, historyLength: messages.length, body };
  }

  async function appendAnswer(
    call: PreparedCall<unknown>,
    response: Anthropic.Messages.Message | Anthropic.Beta.Messages.BetaMessage,
  ) {
    const [answer] = messageParamsToMessages([{ role: 'assistant', content: answerBlocks(response) }]);
    if (!answer) return;
    const message: CompactorMessage = { ...answer, id: stableMessageId(call.historyLength, answer) };
    await options.compactor.append(call.threadId, messagesToEvents([message]));
  }

  return {
    messages: {
      async create(params, requestOptions) {
        const call = await prepareCall(params);
        const response = await client.messages.create(call.body, requestOptions);
        await appendAnswer(call, response);
        return response;
      },
      stream(params, requestOptions) {
        // The SDK's own MessageStream runs the request through `create`: this one prepares first,
        // then streams the rendered request, and appends the assembled answer at message_stop.
        const preparing: Pick<Anthropic['messages'], 'create'> = {
          create: ((body: StreamingParams, createOptions: RequestOptions) => ({
            withResponse: async () => {
              const call = await prepareCall(body);
              const { response, data } = await client.messages
                .create(call.body, createOptions)
                .withResponse();
              return {
                response,
                data: assembleStreamedMessage(data, (message) => appendAnswer(call, message)),
              };
            },
          })) as unknown as Anthropic['messages']['create'],
        };
        return MessageStream.createMessage(preparing as Anthropic['messages'], params, requestOptions);
      },
    },
    beta: {
      messages: {
        async create(params, requestOptions) {
          if (!client.beta)
            throw new Error('withCompaction: beta.messages.create needs a client with `beta`');
          const call = await prepareCall(params);
          // The rendered request is the beta API's (its compaction block is typed there, ADR-0251).
          const body = call.body as BetaCreateParams;
          const response = await client.beta.messages.create(body, requestOptions);
          await appendAnswer(call, response);
          return response;
        },
        stream(params, requestOptions) {
          const beta = client.beta;
          if (!beta) throw new Error('withCompaction: beta.messages.stream needs a client with `beta`');
          // As messages.stream: prepare, stream the rendered (beta) request, append at message_stop.
          const preparing: Pick<Anthropic['beta']['messages'], 'create'> = {
            create: ((body: BetaStreamingParams, createOptions: RequestOptions) => ({
              withResponse: async () => {
                const call = await prepareCall(body);
                const { response, data } = await beta.messages
                  .create(call.body as BetaStreamingParams, createOptions)
                  .withResponse();
                return {
                  response,
                  data: assembleStreamedMessage(data, (message) => appendAnswer(call, message)),
                };
              },
            })) as unknown as Anthropic['beta']['messages']['create'],
          };
          return BetaMessageStream.createMessage(
            preparing as Anthropic['beta']['messages'],
            params,
            requestOptions,
          );
        },
      },
    },
  };
}

function systemText(system: CreateParams['system'] | BetaCreateParams['system']): string {
  if (system === undefined || system === null) return '';
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

type AnswerBlock = Anthropic.Messages.ContentBlockParam | Anthropic.Beta.Messages.BetaContentBlockParam;

/** The response's blocks as the next call's `MessageParam` will carry them (a compaction block as it came). */
function answerBlocks(
  response: Anthropic.Messages.Message | Anthropic.Beta.Messages.BetaMessage,
): AnswerBlock[] {
  return (
    response.content as readonly (
      | Anthropic.Messages.ContentBlock
      | Anthropic.Beta.Messages.BetaContentBlock
    )[]
  ).flatMap((block): AnswerBlock[] => {
    if (block.type === 'compaction') return [block];
    if (block.type === 'text') return [{ type: 'text', text: block.text }];
    if (block.type === 'tool_use')
      return [{ type: 'tool_use', id: block.id, name: block.name, input: block.input }];
    if (block.type === 'thinking')
      return [{ type: 'thinking', thinking: block.thinking, signature: block.signature }];
    if (block.type === 'redacted_thinking') return [{ type: 'redacted_thinking', data: block.data }];
    return [];
  });
}
