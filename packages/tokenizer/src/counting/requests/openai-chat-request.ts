import type { CountingEngine, RequestBreakdown } from '../counting-engine.js';
import { asString, breakdown, isRecord, measureUnknown } from '../counting-engine.js';
import type { Measurement } from '../measurement.js';
import { addPart, emptyMeasurement } from '../measurement.js';
import { openAiTokensPerName } from '../provider-constants.js';
import type { FunctionTool } from '../tool-schemas.js';

/** The parts of an OpenAI Chat Completions request that cost input tokens. */
export interface OpenAiChatRequest {
  messages?: readonly Record<string, unknown>[];
  tools?: readonly unknown[];
}

/** A file part: a base64 PDF (`file_data`, possibly a data URL) is counted by its pages. */
export function measureOpenAiFile(file: unknown, engine: CountingEngine, into: Measurement): void {
  const record = isRecord(file) ? file : {};
  if (typeof record.filename === 'string') addPart(into, 'text', engine.exact(record.filename));
  const data = asString(record.file_data);
  const base64 = data.startsWith('data:application/pdf') ? data.slice(data.indexOf(',') + 1) : '';
  const pages = base64.length > 0 ? engine.context.pdfPages(base64) : 1;
  into.fixedTokens += pages * engine.context.documentPageTokens;
}

function measurePart(part: unknown, engine: CountingEngine, into: Measurement): void {
  if (!isRecord(part)) return;
  switch (part.type) {
    case 'text':
    case 'input_text':
    case 'output_text':
      addPart(into, 'text', engine.exact(asString(part.text)));
      return;
    case 'refusal':
      addPart(into, 'text', engine.exact(asString(part.refusal)));
      return;
    case 'image_url':
    case 'input_image':
      into.fixedTokens += engine.context.imageTokens;
      return;
    case 'file':
      measureOpenAiFile(part.file, engine, into);
      return;
    default:
      measureUnknown(part, engine, into);
  }
}

export function measureOpenAiContent(content: unknown, engine: CountingEngine, into: Measurement): void {
  if (typeof content === 'string') addPart(into, 'text', engine.exact(content));
  else if (Array.isArray(content)) for (const part of content) measurePart(part, engine, into);
}

/**
 * The cookbook's rule: per message 3 tokens + role + content + name (+1). Tool call arguments
 * are already a JSON string and are counted as sent; `tool_call_id` is routing, not shown.
 */
function measureMessage(message: Record<string, unknown>, engine: CountingEngine, into: Measurement): void {
  into.messages += 1;
  measureOpenAiContent(message.content, engine, into);
  if (typeof message.refusal === 'string') addPart(into, 'text', engine.exact(message.refusal));
  if (typeof message.name === 'string') {
    addPart(into, 'text', engine.exact(message.name) + openAiTokensPerName);
  }
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
  for (const call of calls) {
    const fn = isRecord(call) && isRecord(call.function) ? call.function : {};
    addPart(into, 'toolCall', engine.exact(asString(fn.name)) + engine.exact(asString(fn.arguments)));
  }
  if (isRecord(message.function_call)) {
    const fn = message.function_call;
    addPart(into, 'toolCall', engine.exact(asString(fn.name)) + engine.exact(asString(fn.arguments)));
  }
}

export function openAiChatFunctionTools(tools: readonly unknown[] | undefined): {
  functions: FunctionTool[];
  others: unknown[];
} {
  const functions: FunctionTool[] = [];
  const others: unknown[] = [];
  for (const tool of tools ?? []) {
    const fn = isRecord(tool) && isRecord(tool.function) ? tool.function : undefined;
    if (fn && typeof fn.name === 'string') {
      functions.push({ name: fn.name, description: asString(fn.description), parameters: fn.parameters });
    } else others.push(tool);
  }
  return { functions, others };
}

export function countOpenAiChatRequest(request: OpenAiChatRequest, engine: CountingEngine): RequestBreakdown {
  const system = emptyMeasurement();
  const messages = emptyMeasurement();
  for (const message of request.messages ?? []) {
    const role = message.role;
    measureMessage(message, engine, role === 'system' || role === 'developer' ? system : messages);
  }
  const { functions, others } = openAiChatFunctionTools(request.tools);
  return breakdown(engine, system, messages, engine.toolTokens(functions, 'unknown', others));
}
