import type { CountingEngine, RequestBreakdown } from '../counting-engine.js';
import { asString, breakdown, isRecord, measureUnknown } from '../counting-engine.js';
import type { Measurement } from '../measurement.js';
import { addPart, emptyMeasurement } from '../measurement.js';
import type { FunctionTool } from '../tool-schemas.js';
import { measureOpenAiContent, measureOpenAiFile } from './openai-chat-request.js';

/** The parts of an OpenAI Responses request that cost input tokens. */
export interface OpenAiResponsesRequest {
  instructions?: string;
  input?: string | readonly unknown[];
  tools?: readonly unknown[];
}

function measureFunctionOutput(output: unknown, engine: CountingEngine, into: Measurement): void {
  if (typeof output === 'string') {
    addPart(into, 'toolResult', engine.exact(output));
    return;
  }
  let tokens = 0;
  for (const part of Array.isArray(output) ? output : []) {
    if (isRecord(part) && part.type === 'input_text') tokens += engine.exact(asString(part.text));
    else if (isRecord(part) && part.type === 'input_file') measureOpenAiFile(part, engine, into);
    else measureOpenAiContent([part], engine, into);
  }
  addPart(into, 'toolResult', tokens);
}

/**
 * Items are counted like Chat messages (the cookbook's per-message rule): a message item, a
 * function call and a function call output each cost one message's framing. Reasoning items
 * count their readable summary; encrypted reasoning has no visible size.
 */
function measureItem(item: unknown, engine: CountingEngine, into: Measurement): void {
  if (!isRecord(item)) return;
  into.messages += 1;
  switch (item.type) {
    case undefined:
    case 'message':
      measureOpenAiContent(
        Array.isArray(item.content)
          ? item.content.map((part) =>
              isRecord(part) && part.type === 'input_file' ? { type: 'file', file: part } : part,
            )
          : item.content,
        engine,
        into,
      );
      return;
    case 'function_call':
    case 'custom_tool_call':
      addPart(
        into,
        'toolCall',
        engine.exact(asString(item.name)) + engine.exact(asString(item.arguments ?? item.input)),
      );
      return;
    case 'function_call_output':
    case 'custom_tool_call_output':
      measureFunctionOutput(item.output, engine, into);
      return;
    case 'reasoning': {
      const texts = [
        ...(Array.isArray(item.summary) ? item.summary : []),
        ...(Array.isArray(item.content) ? item.content : []),
      ];
      addPart(
        into,
        'reasoning',
        texts.reduce<number>(
          (sum, part) => sum + (isRecord(part) ? engine.exact(asString(part.text)) : 0),
          0,
        ),
      );
      return;
    }
    default:
      measureUnknown(item, engine, into);
  }
}

function functionTools(tools: readonly unknown[] | undefined): {
  functions: FunctionTool[];
  others: unknown[];
} {
  const functions: FunctionTool[] = [];
  const others: unknown[] = [];
  for (const tool of tools ?? []) {
    if (isRecord(tool) && tool.type === 'function' && typeof tool.name === 'string') {
      functions.push({
        name: tool.name,
        description: asString(tool.description),
        parameters: tool.parameters,
      });
    } else others.push(tool);
  }
  return { functions, others };
}

export function countOpenAiResponsesRequest(
  request: OpenAiResponsesRequest,
  engine: CountingEngine,
): RequestBreakdown {
  const system = emptyMeasurement();
  if (request.instructions) {
    system.messages = 1;
    addPart(system, 'text', engine.exact(request.instructions));
  }
  const messages = emptyMeasurement();
  if (typeof request.input === 'string') {
    messages.messages = 1;
    addPart(messages, 'text', engine.exact(request.input));
  } else {
    for (const item of request.input ?? []) {
      const role = isRecord(item) ? item.role : undefined;
      measureItem(item, engine, role === 'system' || role === 'developer' ? system : messages);
    }
  }
  const { functions, others } = functionTools(request.tools);
  return breakdown(engine, system, messages, engine.toolTokens(functions, 'unknown', others));
}
