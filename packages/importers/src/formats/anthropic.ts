import {
  blocksOf,
  convertAnthropicAssistantContent,
  convertAnthropicUserContent,
} from '../shared/anthropic-blocks.js';
import { AdapterReport, type DraftMessage } from '../shared/draft.js';
import { asArray, asString, isObject } from '../shared/values.js';
import type { FormatAdapter } from './format-adapter.js';
import { requestMessages, requestModel } from './openai.js';

/** Content blocks only the Messages API has (OpenAI uses `tool_calls`, `image_url`, ...). */
const anthropicOnlyBlocks = new Set([
  'tool_use',
  'tool_result',
  'thinking',
  'redacted_thinking',
  'server_tool_use',
  'web_search_tool_result',
  'document',
]);

/**
 * An Anthropic Messages API request: `{model?, system?, messages}` with content blocks; tool
 * results are `tool_result` blocks inside user messages, each of which becomes its own `tool`
 * message (before the rest of that user message).
 */
export const anthropicAdapter: FormatAdapter = {
  format: 'anthropic',
  defaultModel: 'claude-sonnet-4-5',
  mismatch(source) {
    const messages = requestMessages(source);
    if (!messages) return 'not a `{messages: [...]}` request';
    const json = source.json();
    if (isObject(json) && json.system !== undefined) return undefined;
    if (isObject(json) && asString(json.model)?.startsWith('claude')) return undefined;
    const hasAnthropicBlock = messages.some((message) =>
      asArray(isObject(message) ? message.content : undefined).some(
        (block) =>
          isObject(block) &&
          (anthropicOnlyBlocks.has(block.type as string) ||
            (block.type === 'image' && isObject(block.source))),
      ),
    );
    if (messages.some((message) => isObject(message) && message.role === 'system')) {
      return 'has a `system` role message (Anthropic takes `system` at the top level)';
    }
    return hasAnthropicBlock ? undefined : 'no `system` field, Claude model or Anthropic-only content block';
  },
  listConversations() {
    return [{ index: 0, id: undefined, title: undefined }];
  },
  read(source) {
    const report = new AdapterReport();
    const json = source.json();
    const drafts: DraftMessage[] = [];
    const system = isObject(json) ? json.system : undefined;
    if (system !== undefined) {
      const text = blocksOf(system)
        .map((block) => (isObject(block) ? (asString(block.text) ?? '') : ''))
        .join('\n');
      drafts.push({ id: 'anthropic-system', role: 'system', content: [{ type: 'text', text }] });
    }
    (requestMessages(source) ?? []).forEach((raw, index) => {
      report.sourceRecords += 1;
      if (!isObject(raw)) return;
      const id = `anthropic-${index}`;
      if (raw.role === 'user') {
        const converted = convertAnthropicUserContent(raw.content, report);
        converted.toolResults.forEach((toolResult, resultIndex) => {
          drafts.push({ id: `${id}-result-${resultIndex}`, role: 'tool', content: [toolResult] });
        });
        if (converted.parts.length > 0) {
          report.sourceUserRecords += 1;
          drafts.push({ id, role: 'user', content: converted.parts });
        }
      } else if (raw.role === 'assistant') {
        const converted = convertAnthropicAssistantContent(raw.content, report);
        report.sourceToolCalls += converted.parts.filter((part) => part.type === 'tool_call').length;
        drafts.push({ id, role: 'assistant', content: converted.parts });
        converted.serverToolResults.forEach((toolResult, resultIndex) => {
          drafts.push({ id: `${id}-server-result-${resultIndex}`, role: 'tool', content: [toolResult] });
        });
      } else {
        report.skip(`role:${String(raw.role)}`);
        report.warn(`skipped a message with role ${JSON.stringify(raw.role)}`);
      }
    });
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
