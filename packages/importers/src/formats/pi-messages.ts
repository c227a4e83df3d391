import type { AdapterReport, DraftMessage, DraftPart } from '../shared/draft.js';
import { base64ImagePart } from '../shared/media.js';
import { asArray, asNumber, asString, isObject, type JsonObject } from '../shared/values.js';

/** One pi `message` record → a draft; undefined for roles that never reach the model. */
export function convertMessage(
  message: JsonObject,
  id: string,
  createdAt: string | undefined,
  report: AdapterReport,
): DraftMessage | undefined {
  const base = { id, ...(createdAt === undefined ? {} : { createdAt }) };
  const role = asString(message.role);
  switch (role) {
    case 'user':
      report.sourceUserRecords += 1;
      return { ...base, role: 'user', content: userContent(message.content) };
    case 'assistant':
      return {
        ...base,
        role: 'assistant',
        content: assistantContent(message, report),
        metadata: assistantMetadata(message),
      };
    case 'toolResult': {
      const texts: string[] = [];
      const images = [];
      for (const part of asArray(message.content)) {
        if (!isObject(part)) continue;
        if (part.type === 'text') texts.push(asString(part.text) ?? '');
        else if (part.type === 'image')
          images.push(base64ImagePart(asString(part.data) ?? '', asString(part.mimeType)));
      }
      const toolName = asString(message.toolName);
      return {
        ...base,
        role: 'tool',
        content: [
          {
            type: 'tool_result',
            toolCallId: asString(message.toolCallId) || 'missing-id',
            ...(toolName === undefined ? {} : { toolName }),
            outcome: message.isError === true ? 'failure' : 'success',
            content: typeof message.content === 'string' ? message.content : texts.join('\n'),
            ...(images.length > 0 ? { images } : {}),
            ...(createdAt === undefined ? {} : { completedAt: createdAt }),
          },
        ],
      };
    }
    case 'bashExecution':
      if (message.excludeFromContext === true) {
        report.skip('message:bashExecution(excluded)');
        return undefined;
      }
      // The user ran a command with `!`: pi hands its output to the model as user text.
      return {
        ...base,
        role: 'user',
        synthetic: true,
        metadata: {
          piRole: 'bashExecution',
          command: message.command,
          exitCode: message.exitCode,
          cancelled: message.cancelled,
        },
        content: [{ type: 'text', text: bashExecutionText(message) }],
      };
    case 'custom':
    case 'hookMessage':
      return {
        ...base,
        role: 'user',
        synthetic: true,
        metadata: { piRole: role },
        content: userContent(message.content),
      };
    default:
      report.skip(`message:${role ?? 'missing'}`);
      return undefined;
  }
}

export function userContent(content: unknown): DraftPart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  const parts: DraftPart[] = [];
  for (const part of asArray(content)) {
    if (!isObject(part)) continue;
    if (part.type === 'text') parts.push({ type: 'text', text: asString(part.text) ?? '' });
    else if (part.type === 'image')
      parts.push(base64ImagePart(asString(part.data) ?? '', asString(part.mimeType)));
  }
  return parts;
}

function assistantContent(message: JsonObject, report: AdapterReport): DraftPart[] {
  const parts: DraftPart[] = [];
  for (const part of asArray(message.content)) {
    if (!isObject(part)) continue;
    if (part.type === 'text') parts.push({ type: 'text', text: asString(part.text) ?? '' });
    else if (part.type === 'thinking') {
      const signature = asString(part.thinkingSignature);
      parts.push({
        type: 'reasoning',
        text: asString(part.thinking) ?? '',
        ...(signature === undefined ? {} : { signature }),
        ...(part.redacted === true ? { redacted: true } : {}),
      });
    } else if (part.type === 'toolCall') {
      report.sourceToolCalls += 1;
      parts.push({
        type: 'tool_call',
        id: asString(part.id) || 'missing-id',
        name: asString(part.name) || 'unknown',
        input: part.arguments ?? {},
      });
    } else if (part.type === 'image') {
      parts.push(base64ImagePart(asString(part.data) ?? '', asString(part.mimeType)));
    } else {
      report.skip(`part:${asString(part.type) ?? 'unknown'}`);
    }
  }
  return parts;
}

/** The provider's own accounting, kept for tokenizer calibration and evaluation. */
function assistantMetadata(message: JsonObject): Record<string, unknown> {
  const metadata: Record<string, unknown> = {};
  for (const key of ['model', 'provider', 'api', 'stopReason', 'errorMessage'] as const) {
    if (message[key] !== undefined) metadata[key] = message[key];
  }
  if (isObject(message.usage)) {
    metadata.usage = message.usage;
    metadata.tokenUsage = {
      inputTokens: asNumber(message.usage.input) ?? 0,
      outputTokens: asNumber(message.usage.output) ?? 0,
      cacheReadTokens: asNumber(message.usage.cacheRead) ?? 0,
      cacheWriteTokens: asNumber(message.usage.cacheWrite) ?? 0,
    };
  }
  return metadata;
}

/** Exactly how pi presents a `!command` run to the model. */
function bashExecutionText(message: JsonObject): string {
  let text = `Ran \`${asString(message.command) ?? ''}\`\n`;
  const output = asString(message.output);
  text += output ? `\`\`\`\n${output}\n\`\`\`` : '(no output)';
  if (message.cancelled === true) text += '\n\n(command cancelled)';
  else if (typeof message.exitCode === 'number' && message.exitCode !== 0) {
    text += `\n\nCommand exited with code ${message.exitCode}`;
  }
  if (message.truncated === true && typeof message.fullOutputPath === 'string') {
    text += `\n\n[Output truncated. Full output: ${message.fullOutputPath}]`;
  }
  return text;
}
