import { AdapterReport } from '../shared/draft.js';
import { convertOpenAiMessages } from '../shared/openai-messages.js';
import type { TranscriptSource } from '../shared/transcript-source.js';
import { asString, isObject } from '../shared/values.js';
import type { FormatAdapter } from './format-adapter.js';

/** The message list of a request (`{messages}`) or a bare array of messages. */
export function requestMessages(source: TranscriptSource): unknown[] | undefined {
  const json = source.json();
  const messages = Array.isArray(json) ? json : isObject(json) ? json.messages : undefined;
  if (!Array.isArray(messages) || messages.length === 0) return undefined;
  return messages.every((message) => isObject(message) && typeof message.role === 'string')
    ? messages
    : undefined;
}

export function requestModel(source: TranscriptSource): string | undefined {
  const json = source.json();
  return isObject(json) ? asString(json.model) : undefined;
}

/** An OpenAI Chat Completions request (`{model?, messages}`) or a bare message array. */
export const openAiAdapter: FormatAdapter = {
  format: 'openai',
  defaultModel: 'gpt-4o',
  mismatch(source) {
    return requestMessages(source)
      ? undefined
      : 'not a `{messages: [...]}` request or an array of messages with roles';
  },
  listConversations() {
    return [{ index: 0, id: undefined, title: undefined }];
  },
  read(source) {
    const report = new AdapterReport();
    const drafts = convertOpenAiMessages(requestMessages(source) ?? [], { idPrefix: 'openai', report });
    return {
      drafts,
      report,
      model: requestModel(source),
      conversationCount: 1,
      conversationId: undefined,
      startedAt: undefined,
      threadMetadata: {},
    };
  },
};
