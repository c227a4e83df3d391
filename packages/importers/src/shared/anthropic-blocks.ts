import type { DocumentPart, ImagePart } from '@compactor/core';
import type { AdapterReport, DraftPart, DraftToolResult } from './draft.js';
import { base64ImagePart, imagePartFromUrl } from './media.js';
import { asArray, asString, isObject, type JsonObject } from './values.js';

/** The parts of an Anthropic user message, split into tool results and everything else. */
export interface AnthropicUserContent {
  toolResults: DraftToolResult[];
  parts: DraftPart[];
}

/** The parts of an Anthropic assistant message; server tool results become their own messages. */
export interface AnthropicAssistantContent {
  parts: DraftPart[];
  serverToolResults: DraftToolResult[];
}

export function blocksOf(content: unknown): unknown[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return asArray(content);
}

export function convertAnthropicUserContent(content: unknown, report: AdapterReport): AnthropicUserContent {
  const result: AnthropicUserContent = { toolResults: [], parts: [] };
  for (const block of blocksOf(content)) {
    if (!isObject(block)) continue;
    if (block.type === 'tool_result') {
      result.toolResults.push(convertToolResultBlock(block, report));
      continue;
    }
    const part = convertMediaOrText(block, report);
    if (part) result.parts.push(part);
  }
  return result;
}

export function convertAnthropicAssistantContent(
  content: unknown,
  report: AdapterReport,
): AnthropicAssistantContent {
  const result: AnthropicAssistantContent = { parts: [], serverToolResults: [] };
  for (const block of blocksOf(content)) {
    if (!isObject(block)) continue;
    const type = asString(block.type);
    if (type === 'tool_use' || type === 'server_tool_use' || type === 'mcp_tool_use') {
      result.parts.push({
        type: 'tool_call',
        id: asString(block.id) || 'missing-id',
        name: asString(block.name) || 'unknown',
        input: block.input ?? {},
      });
    } else if (type === 'thinking') {
      const signature = asString(block.signature);
      result.parts.push({
        type: 'reasoning',
        text: asString(block.thinking) ?? '',
        ...(signature === undefined ? {} : { signature }),
      });
    } else if (type === 'redacted_thinking') {
      // The encrypted payload must go back to the API unchanged: it is the signature.
      result.parts.push({
        type: 'reasoning',
        text: '',
        redacted: true,
        signature: asString(block.data) ?? '',
      });
    } else if (type?.endsWith('_tool_result') && typeof block.tool_use_id === 'string') {
      result.serverToolResults.push(serverToolResult(block));
    } else {
      const part = convertMediaOrText(block, report);
      if (part) result.parts.push(part);
    }
  }
  return result;
}

function convertMediaOrText(block: JsonObject, report: AdapterReport): DraftPart | undefined {
  const type = asString(block.type);
  if (type === 'text') return { type: 'text', text: asString(block.text) ?? '' };
  if (type === 'image') {
    const image = convertImageSource(block.source);
    if (!image) report.warn('skipped an image block whose source is neither base64 nor a URL');
    return image;
  }
  if (type === 'document') {
    const document = convertDocument(block);
    if (!document) report.warn('skipped a document block whose source is neither base64, text nor a URL');
    return document;
  }
  report.skip(`block:${type ?? 'unknown'}`);
  return undefined;
}

export function convertImageSource(source: unknown): ImagePart | undefined {
  if (!isObject(source)) return undefined;
  if (source.type === 'base64' && typeof source.data === 'string') {
    return base64ImagePart(source.data, asString(source.media_type));
  }
  if (source.type === 'url' && typeof source.url === 'string') return imagePartFromUrl(source.url);
  return undefined;
}

function convertDocument(block: JsonObject): DocumentPart | undefined {
  const source = block.source;
  if (!isObject(source)) return undefined;
  const title = asString(block.title);
  const withTitle = (part: DocumentPart): DocumentPart => (title === undefined ? part : { ...part, title });
  const mediaType = asString(source.media_type) ?? 'application/pdf';
  if (source.type === 'base64' && typeof source.data === 'string') {
    return withTitle({ type: 'document', mediaType, source: { kind: 'base64', data: source.data } });
  }
  if (source.type === 'text' && typeof source.data === 'string') {
    const data = Buffer.from(source.data).toString('base64');
    return withTitle({ type: 'document', mediaType: 'text/plain', source: { kind: 'base64', data } });
  }
  if (source.type === 'url' && typeof source.url === 'string') {
    return withTitle({ type: 'document', mediaType, source: { kind: 'url', url: source.url } });
  }
  return undefined;
}

function convertToolResultBlock(block: JsonObject, report: AdapterReport): DraftToolResult {
  const texts: string[] = [];
  const images: ImagePart[] = [];
  if (typeof block.content === 'string') {
    texts.push(block.content);
  } else {
    for (const inner of asArray(block.content)) {
      if (!isObject(inner)) continue;
      if (inner.type === 'text') texts.push(asString(inner.text) ?? '');
      else if (inner.type === 'image') {
        const image = convertImageSource(inner.source);
        if (image) images.push(image);
        else report.warn('skipped a tool result image whose source is neither base64 nor a URL');
      } else {
        report.skip(`tool-result-block:${asString(inner.type) ?? 'unknown'}`);
      }
    }
  }
  return {
    type: 'tool_result',
    toolCallId: asString(block.tool_use_id) || 'missing-id',
    outcome: block.is_error === true ? 'failure' : 'success',
    content: texts.join('\n'),
    ...(images.length > 0 ? { images } : {}),
  };
}

/** Server tools (web search, code execution) answer inside the assistant message itself. */
function serverToolResult(block: JsonObject): DraftToolResult {
  const content = block.content;
  const failed = isObject(content) && typeof content.type === 'string' && content.type.endsWith('_error');
  return {
    type: 'tool_result',
    toolCallId: block.tool_use_id as string,
    outcome: failed ? 'failure' : 'success',
    content: typeof content === 'string' ? content : { [asString(block.type) ?? 'result']: content },
  };
}
