import type { AdapterReport, DraftMessage, DraftPart } from './draft.js';
import { imagePartFromUrl } from './media.js';
import { asArray, asString, isObject, type JsonObject, tryParseJson } from './values.js';

export interface OpenAiConversionOptions {
  /** Message ids are `${idPrefix}-${index}` (index in the source array). */
  idPrefix: string;
  report: AdapterReport;
  /** Formats without an error flag may still mark failures in the text (tau-bench's `Error:`). */
  isFailure?: (content: string) => boolean;
  /** Per-message adjustments (synthetic, subagent, metadata) a format knows better. */
  annotate?: (message: JsonObject, index: number, draft: DraftMessage) => DraftMessage;
}

/**
 * OpenAI Chat Completions messages → drafts. `developer` becomes `system`; assistant
 * `tool_calls` (and the legacy `function_call`) become `tool_call` parts with their JSON
 * arguments parsed; each `tool` (or legacy `function`) message becomes one tool result;
 * `reasoning_content` becomes a reasoning part.
 */
export function convertOpenAiMessages(
  messages: readonly unknown[],
  options: OpenAiConversionOptions,
): DraftMessage[] {
  const drafts: DraftMessage[] = [];
  /** Legacy `function_call`s waiting for their `function` message, by function name. */
  const legacyCalls = new Map<string, string[]>();
  messages.forEach((raw, index) => {
    options.report.sourceRecords += 1;
    if (!isObject(raw)) {
      options.report.skip('non-object message');
      return;
    }
    const id = `${options.idPrefix}-${index}`;
    const draft = convertOne(raw, id, legacyCalls, options);
    if (!draft) return;
    drafts.push(options.annotate ? options.annotate(raw, index, draft) : draft);
  });
  return drafts;
}

function convertOne(
  message: JsonObject,
  id: string,
  legacyCalls: Map<string, string[]>,
  options: OpenAiConversionOptions,
): DraftMessage | undefined {
  const { report } = options;
  const role = asString(message.role);
  switch (role) {
    case 'system':
    case 'developer': {
      const text = plainText(message.content);
      return {
        id,
        role: 'system',
        content: [{ type: 'text', text }],
        ...(role === 'developer' ? { metadata: { originalRole: 'developer' } } : {}),
      };
    }
    case 'user': {
      report.sourceUserRecords += 1;
      const name = asString(message.name);
      return {
        id,
        role: 'user',
        content: userParts(message.content, report),
        ...(name === undefined ? {} : { metadata: { name } }),
      };
    }
    case 'assistant':
      return { id, role: 'assistant', content: assistantParts(message, id, legacyCalls, report) };
    case 'tool': {
      const content = plainText(message.content);
      const toolName = asString(message.name);
      return {
        id,
        role: 'tool',
        content: [
          {
            type: 'tool_result',
            toolCallId: asString(message.tool_call_id) || 'missing-id',
            ...(toolName === undefined ? {} : { toolName }),
            outcome: options.isFailure?.(content) ? 'failure' : 'success',
            content,
          },
        ],
      };
    }
    case 'function': {
      const name = asString(message.name) ?? 'unknown';
      const callId = legacyCalls.get(name)?.shift() ?? `missing-function-call-${name}`;
      const content = plainText(message.content);
      return {
        id,
        role: 'tool',
        content: [
          {
            type: 'tool_result',
            toolCallId: callId,
            toolName: name,
            outcome: options.isFailure?.(content) ? 'failure' : 'success',
            content,
          },
        ],
      };
    }
    default:
      report.skip(`role:${role ?? 'missing'}`);
      report.warn(`skipped a message with unknown role ${JSON.stringify(role)}`);
      return undefined;
  }
}

/** Text of a string or an array of text parts (other parts are not text and are left out). */
export function plainText(content: unknown): string {
  if (typeof content === 'string') return content;
  return asArray(content)
    .map((part) => (isObject(part) ? (asString(part.text) ?? asString(part.refusal) ?? '') : ''))
    .filter((text) => text !== '')
    .join('\n');
}

function userParts(content: unknown, report: AdapterReport): DraftPart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  const parts: DraftPart[] = [];
  for (const part of asArray(content)) {
    if (!isObject(part)) continue;
    if (part.type === 'text') parts.push({ type: 'text', text: asString(part.text) ?? '' });
    else if (part.type === 'image_url') {
      const imageUrl = part.image_url;
      const url = isObject(imageUrl) ? asString(imageUrl.url) : asString(imageUrl);
      if (url) parts.push(imagePartFromUrl(url));
    } else {
      report.skip(`part:${asString(part.type) ?? 'unknown'}`);
      report.warn(`skipped a user content part of type ${JSON.stringify(part.type)}`);
    }
  }
  return parts;
}

function assistantParts(
  message: JsonObject,
  id: string,
  legacyCalls: Map<string, string[]>,
  report: AdapterReport,
): DraftPart[] {
  const parts: DraftPart[] = [];
  const reasoning = asString(message.reasoning_content) ?? asString(message.reasoning);
  if (reasoning) parts.push({ type: 'reasoning', text: reasoning });
  const text = plainText(message.content);
  if (text !== '') parts.push({ type: 'text', text });
  const refusal = asString(message.refusal);
  if (refusal) parts.push({ type: 'text', text: refusal });
  for (const call of asArray(message.tool_calls)) {
    if (!isObject(call)) continue;
    report.sourceToolCalls += 1;
    const fn = isObject(call.function) ? call.function : {};
    parts.push({
      type: 'tool_call',
      id: asString(call.id) || `${id}-call`,
      name: asString(fn.name) || 'unknown',
      input: parseArguments(fn.arguments, report),
    });
  }
  if (isObject(message.function_call)) {
    report.sourceToolCalls += 1;
    const name = asString(message.function_call.name) || 'unknown';
    const callId = `${id}-function-call`;
    legacyCalls.set(name, [...(legacyCalls.get(name) ?? []), callId]);
    parts.push({
      type: 'tool_call',
      id: callId,
      name,
      input: parseArguments(message.function_call.arguments, report),
    });
  }
  return parts;
}

/** Arguments are a JSON string in this format; a string that is not JSON is kept as is. */
function parseArguments(raw: unknown, report: AdapterReport): unknown {
  if (typeof raw !== 'string') return raw ?? {};
  if (raw.trim() === '') return {};
  const parsed = tryParseJson(raw);
  if (parsed === undefined) {
    report.warn('kept tool call arguments that are not valid JSON as a raw string');
    return raw;
  }
  return parsed;
}
