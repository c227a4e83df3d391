import { stableStringify } from '@compactor/core';
import {
  blocksOf,
  convertAnthropicAssistantContent,
  convertAnthropicUserContent,
} from '../shared/anthropic-blocks.js';
import type { AdapterReport, DraftMessage } from '../shared/draft.js';
import type { JsonLineRecord } from '../shared/json-lines.js';
import { toIsoTimestamp } from '../shared/timestamps.js';
import { asNumber, asString, isObject, type JsonObject } from '../shared/values.js';
import { isHarnessOnly, launchedAgentId } from './claude-code-text.js';

export interface ClaudeCodeRecords {
  drafts: DraftMessage[];
  /** Subagent id → id of the tool result draft whose Task call launched it. */
  launchedBy: Map<string, string>;
  model: string | undefined;
  sessionId: string | undefined;
  startedAt: string | undefined;
}

interface AssistantEntry {
  draft: DraftMessage;
  blockKeys: Set<string>;
}

/**
 * Claude Code project JSONL → drafts, in file order:
 * - one assistant message is written as several records (one content block each) sharing
 *   `message.id`: consecutive ones are merged into one message;
 * - on resume, Claude Code may write the conversation again under new uuids with the same
 *   timestamps and content: a record whose every block was already seen (same assistant
 *   message id, or same user timestamp) is a replay and is skipped;
 * - `isMeta` records, compaction summaries and user records made only of harness text are
 *   synthetic; text sent alongside tool results follows the same rule;
 * - `isSidechain` records (or a subagent file) carry `subagentId`.
 */
export function convertClaudeCodeRecords(
  records: readonly JsonLineRecord[],
  report: AdapterReport,
  scope: { subagentId: string | undefined },
): ClaudeCodeRecords {
  const result: ClaudeCodeRecords = {
    drafts: [],
    launchedBy: new Map(),
    model: undefined,
    sessionId: undefined,
    startedAt: undefined,
  };
  const assistants = new Map<string, AssistantEntry>();
  const userBlocksByTimestamp = new Map<string, Set<string>>();
  let lastPushed: DraftMessage | undefined;
  const push = (draft: DraftMessage) => {
    result.drafts.push(draft);
    lastPushed = draft;
  };

  for (const { value, line } of records) {
    report.sourceRecords += 1;
    if (!isObject(value)) {
      report.skip('non-object');
      continue;
    }
    const type = asString(value.type) ?? 'unknown';
    result.sessionId ??= asString(value.sessionId);
    const createdAt = toIsoTimestamp(value.timestamp);
    if ((type === 'user' || type === 'assistant') && createdAt) result.startedAt ??= createdAt;
    const subagentId =
      scope.subagentId ?? (value.isSidechain === true ? (asString(value.agentId) ?? 'sidechain') : undefined);
    const common = {
      ...(createdAt === undefined ? {} : { createdAt }),
      ...(subagentId === undefined ? {} : { subagentId }),
    };
    const idBase = `cc-${subagentId === undefined ? '' : `${subagentId}-`}`;
    const message = isObject(value.message) ? value.message : undefined;

    if (type === 'user' && message) {
      const blocks = blocksOf(message.content);
      const hasToolResult = blocks.some((block) => isObject(block) && block.type === 'tool_result');
      if (!hasToolResult) report.sourceUserRecords += 1;
      const keys = blocks.map((block) => stableStringify(block));
      const timestampKey = asString(value.timestamp) ?? '';
      const seen = userBlocksByTimestamp.get(timestampKey);
      if (seen && keys.length > 0 && keys.every((key) => seen.has(key))) {
        report.replayedRecords += 1;
        continue;
      }
      userBlocksByTimestamp.set(timestampKey, new Set([...(seen ?? []), ...keys]));
      const uuid = asString(value.uuid) ?? `line-${line}`;
      const converted = convertAnthropicUserContent(message.content, report);
      converted.toolResults.forEach((toolResult, index) => {
        const id = `${idBase}${uuid}${index === 0 ? '' : `-${index}`}`;
        const text = typeof toolResult.content === 'string' ? toolResult.content : '';
        const agentId = launchedAgentId(value.toolUseResult, text);
        if (agentId && subagentId === undefined) result.launchedBy.set(agentId, id);
        push({
          id,
          role: 'tool',
          ...common,
          metadata: { sourceLine: line },
          content: [{ ...toolResult, ...(createdAt === undefined ? {} : { completedAt: createdAt }) }],
        });
      });
      if (converted.parts.length > 0) {
        const synthetic =
          value.isMeta === true || value.isCompactSummary === true || isHarnessOnly(converted.parts);
        push({
          id: `${idBase}${uuid}${converted.toolResults.length > 0 ? '-text' : ''}`,
          role: 'user',
          ...common,
          ...(synthetic ? { synthetic: true } : {}),
          metadata: {
            sourceLine: line,
            ...(value.isMeta === true ? { isMeta: true } : {}),
            ...(value.isCompactSummary === true ? { compactSummary: true } : {}),
          },
          content: converted.parts,
        });
      }
      continue;
    }

    if (type === 'assistant' && message) {
      const blocks = blocksOf(message.content);
      for (const block of blocks)
        if (isObject(block) && block.type === 'tool_use') report.sourceToolCalls += 1;
      const messageId = asString(message.id) ?? asString(value.uuid) ?? `line-${line}`;
      const keys = blocks.map((block) => stableStringify(block));
      const existing = assistants.get(`${idBase}${messageId}`);
      if (existing && keys.every((key) => existing.blockKeys.has(key))) {
        report.replayedRecords += 1;
        continue;
      }
      const model = asString(message.model);
      const synthetic = model === '<synthetic>' || value.isApiErrorMessage === true;
      if (!synthetic && model) result.model ??= model;
      const metadata = assistantMetadata(message, value, line);
      const merging = existing !== undefined && existing.draft === lastPushed;
      // A streaming continuation adds only the blocks the message does not have yet.
      const newBlocks = merging ? blocks.filter((_, index) => !existing.blockKeys.has(keys[index]!)) : blocks;
      const converted = convertAnthropicAssistantContent(newBlocks, report);
      if (merging) {
        for (const key of keys) existing.blockKeys.add(key);
        existing.draft.content.push(...converted.parts);
        existing.draft.metadata = {
          ...existing.draft.metadata,
          ...metadata,
          sourceLine: existing.draft.metadata?.sourceLine,
        };
      } else {
        const draft: DraftMessage = {
          id: `${idBase}${messageId}`,
          role: 'assistant',
          ...common,
          ...(synthetic ? { synthetic: true } : {}),
          metadata,
          content: converted.parts,
        };
        assistants.set(draft.id, { draft, blockKeys: new Set(keys) });
        push(draft);
      }
      converted.serverToolResults.forEach((toolResult, index) => {
        push({
          id: `${idBase}${messageId}-server-result-${index}`,
          role: 'tool',
          ...common,
          metadata: { sourceLine: line, serverTool: true },
          content: [toolResult],
        });
      });
      continue;
    }

    report.skip(type === 'system' ? `system:${asString(value.subtype) ?? 'unknown'}` : type);
  }
  return result;
}

function assistantMetadata(message: JsonObject, record: JsonObject, line: number): Record<string, unknown> {
  const metadata: Record<string, unknown> = { sourceLine: line };
  if (typeof message.model === 'string') metadata.model = message.model;
  if (message.stop_reason !== undefined && message.stop_reason !== null)
    metadata.stopReason = message.stop_reason;
  if (typeof record.requestId === 'string') metadata.requestId = record.requestId;
  if (record.isApiErrorMessage === true) metadata.isApiErrorMessage = true;
  const usage = message.usage;
  if (isObject(usage)) {
    metadata.usage = usage;
    metadata.tokenUsage = {
      inputTokens: asNumber(usage.input_tokens) ?? 0,
      outputTokens: asNumber(usage.output_tokens) ?? 0,
      cacheReadTokens: asNumber(usage.cache_read_input_tokens) ?? 0,
      cacheWriteTokens: asNumber(usage.cache_creation_input_tokens) ?? 0,
    };
  }
  return metadata;
}
