import type { CountingEngine, RequestBreakdown } from '../counting-engine.js';
import { asString, breakdown, isRecord, measureUnknown } from '../counting-engine.js';
import { toJson } from '../measure-content.js';
import type { Measurement } from '../measurement.js';
import { addPart, emptyMeasurement } from '../measurement.js';
import type { FunctionTool, ToolChoiceKind } from '../tool-schemas.js';

/** The parts of an Anthropic Messages request that cost input tokens. */
export interface AnthropicRequest {
  system?: string | readonly unknown[];
  tools?: readonly unknown[];
  tool_choice?: { type?: string };
  messages?: readonly { role?: string; content?: string | readonly unknown[] }[];
}

function measureDocument(block: Record<string, unknown>, engine: CountingEngine, into: Measurement): void {
  if (typeof block.title === 'string') addPart(into, 'text', engine.exact(block.title));
  if (typeof block.context === 'string') addPart(into, 'text', engine.exact(block.context));
  const source = isRecord(block.source) ? block.source : {};
  if (source.type === 'text') {
    addPart(into, 'text', engine.exact(asString(source.data)));
  } else if (source.type === 'content') {
    const content = source.content;
    if (typeof content === 'string') addPart(into, 'text', engine.exact(content));
    else if (Array.isArray(content)) for (const inner of content) measureBlock(inner, engine, into);
  } else if (source.type === 'base64' && source.media_type === 'application/pdf') {
    into.fixedTokens += engine.context.pdfPages(asString(source.data)) * engine.context.documentPageTokens;
  } else {
    into.fixedTokens += engine.context.documentPageTokens;
  }
}

/** Tool result content: a string, or text / image / document blocks (nested media keep their estimates). */
function measureToolResult(block: Record<string, unknown>, engine: CountingEngine, into: Measurement): void {
  const { content } = block;
  let tokens = block.is_error === true ? engine.exact('error') : 0;
  if (typeof content === 'string') tokens += engine.exact(content);
  else if (Array.isArray(content)) {
    for (const inner of content) {
      if (isRecord(inner) && inner.type === 'text') tokens += engine.exact(asString(inner.text));
      else measureBlock(inner, engine, into);
    }
  }
  addPart(into, 'toolResult', tokens);
}

function measureBlock(block: unknown, engine: CountingEngine, into: Measurement): void {
  if (typeof block === 'string') {
    addPart(into, 'text', engine.exact(block));
    return;
  }
  if (!isRecord(block)) return;
  switch (block.type) {
    case 'text':
      addPart(into, 'text', engine.exact(asString(block.text)));
      return;
    case 'image':
      into.fixedTokens += engine.context.imageTokens;
      return;
    case 'document':
      measureDocument(block, engine, into);
      return;
    case 'tool_use':
    case 'server_tool_use':
      addPart(into, 'toolCall', engine.exact(asString(block.name)) + engine.exact(toJson(block.input)));
      return;
    case 'tool_result':
      measureToolResult(block, engine, into);
      return;
    case 'thinking':
      addPart(into, 'reasoning', engine.exact(asString(block.thinking)));
      return;
    case 'redacted_thinking':
      // Encrypted: its real size is unknown; the encrypted text over-counts it.
      addPart(into, 'reasoning', engine.exact(asString(block.data)));
      return;
    default:
      measureUnknown(block, engine, into);
  }
}

export function measureAnthropicContent(
  content: string | readonly unknown[] | undefined,
  engine: CountingEngine,
  into: Measurement,
): void {
  if (typeof content === 'string') addPart(into, 'text', engine.exact(content));
  else if (Array.isArray(content)) for (const block of content) measureBlock(block, engine, into);
}

export function anthropicFunctionTools(tools: readonly unknown[] | undefined): {
  functions: FunctionTool[];
  others: unknown[];
} {
  const functions: FunctionTool[] = [];
  const others: unknown[] = [];
  for (const tool of tools ?? []) {
    if (isRecord(tool) && typeof tool.name === 'string' && 'input_schema' in tool) {
      functions.push({
        name: tool.name,
        description: asString(tool.description),
        parameters: tool.input_schema,
      });
    } else others.push(tool);
  }
  return { functions, others };
}

function toolChoice(request: AnthropicRequest): ToolChoiceKind {
  const type = request.tool_choice?.type;
  if (type === undefined || type === 'auto' || type === 'none') return 'auto';
  return 'forced';
}

export function countAnthropicRequest(request: AnthropicRequest, engine: CountingEngine): RequestBreakdown {
  const system = emptyMeasurement();
  if (request.system !== undefined && request.system.length > 0) {
    system.messages = 1;
    measureAnthropicContent(request.system, engine, system);
  }
  const messages = emptyMeasurement();
  for (const message of request.messages ?? []) {
    messages.messages += 1;
    measureAnthropicContent(message.content, engine, messages);
  }
  const { functions, others } = anthropicFunctionTools(request.tools);
  // Server tools (`web_search_…`, `bash_…`) have no input schema: the engine counts their JSON.
  const tools = engine.toolTokens(functions, toolChoice(request), others);
  return breakdown(engine, system, messages, tools);
}
