/**
 * Reads pi-coding-agent session files (../shared/corpus/pi) for calibration: the records, the
 * messages as core `Message`s, and the API-reported prompt size of every assistant call.
 * Used by `scripts/calibrate-claude.ts` and the corpus test; not part of the package API.
 */
import { readFileSync } from 'node:fs';
import type { ContentPart, Message } from '@compactor/core';

export interface PiUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

interface PiContentBlock {
  type: string;
  text?: string;
  thinking?: string;
  thinkingSignature?: string;
  id?: string;
  name?: string;
  arguments?: unknown;
  data?: string;
  mimeType?: string;
}

export interface PiMessage {
  role: 'user' | 'assistant' | 'toolResult' | 'bashExecution' | string;
  content?: string | PiContentBlock[];
  toolCallId?: string;
  toolName?: string;
  isError?: boolean;
  command?: string;
  output?: string;
  provider?: string;
  model?: string;
  api?: string;
  usage?: PiUsage;
  stopReason?: string;
}

export interface PiRecord {
  type: string;
  message?: PiMessage;
  modelId?: string;
  thinkingLevel?: string;
  [key: string]: unknown;
}

/**
 * Splits a line that may hold several JSON objects glued together (`}{`), as lines 1013 of
 * compact.jsonl and 440 of session.jsonl do. Tracks string literals so braces inside text do
 * not count.
 */
export function splitGluedJson(line: string): string[] {
  const pieces: string[] = [];
  let depth = 0;
  let inString = false;
  let escaped = false;
  let start = -1;
  for (let index = 0; index < line.length; index++) {
    const character = line[index];
    if (inString) {
      if (escaped) escaped = false;
      else if (character === '\\') escaped = true;
      else if (character === '"') inString = false;
      continue;
    }
    if (character === '"') inString = true;
    else if (character === '{') {
      if (depth === 0) start = index;
      depth++;
    } else if (character === '}') {
      depth--;
      if (depth === 0 && start >= 0) {
        pieces.push(line.slice(start, index + 1));
        start = -1;
      }
    }
  }
  return pieces;
}

export function parsePiSession(text: string): PiRecord[] {
  const records: PiRecord[] = [];
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (trimmed.length === 0) continue;
    try {
      records.push(JSON.parse(trimmed) as PiRecord);
    } catch {
      for (const piece of splitGluedJson(trimmed)) records.push(JSON.parse(piece) as PiRecord);
    }
  }
  return records;
}

export function readPiSession(path: string): PiRecord[] {
  return parsePiSession(readFileSync(path, 'utf8'));
}

/** The prompt the API processed for one call: fresh input plus cache reads and writes. */
export function promptTokens(usage: PiUsage): number {
  return usage.input + usage.cacheRead + usage.cacheWrite;
}

function blocks(message: PiMessage): PiContentBlock[] {
  if (typeof message.content === 'string') return [{ type: 'text', text: message.content }];
  return message.content ?? [];
}

function convertBlock(block: PiContentBlock): ContentPart | undefined {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text ?? '' };
    case 'thinking':
      return {
        type: 'reasoning',
        text: block.thinking ?? '',
        ...(block.thinkingSignature ? { signature: block.thinkingSignature } : {}),
      };
    case 'toolCall':
      return {
        type: 'tool_call',
        id: block.id ?? 'unknown',
        name: block.name ?? 'unknown',
        input: block.arguments,
      };
    case 'image':
      return {
        type: 'image',
        mediaType: block.mimeType ?? 'image/png',
        source: { kind: 'base64', data: block.data ?? '' },
      };
    default:
      return undefined;
  }
}

/**
 * A pi message as the core model sees it (the shape an importer produces): toolResult becomes a
 * `tool` message whose envelope carries the joined text; a bashExecution (a shell command the
 * user ran) becomes user text.
 */
export function toCoreMessage(message: PiMessage, id: string): Message {
  if (message.role === 'toolResult') {
    const text = blocks(message)
      .filter((block) => block.type === 'text')
      .map((block) => block.text ?? '')
      .join('\n');
    return {
      id,
      role: 'tool',
      content: [
        {
          type: 'tool_result',
          toolName: message.toolName ?? 'unknown',
          toolCallId: message.toolCallId ?? 'unknown',
          outcome: message.isError ? 'failure' : 'success',
          content: text,
          keyFields: {},
        },
      ],
    };
  }
  if (message.role === 'bashExecution') {
    return {
      id,
      role: 'user',
      content: [
        { type: 'text', text: `Ran \`${message.command ?? ''}\`\n\`\`\`\n${message.output ?? ''}\n\`\`\`` },
      ],
    };
  }
  const parts = blocks(message)
    .map(convertBlock)
    .filter((part): part is ContentPart => part !== undefined);
  return {
    id,
    role: message.role === 'assistant' ? 'assistant' : 'user',
    content: parts.length > 0 ? parts : [{ type: 'text', text: '' }],
  };
}
