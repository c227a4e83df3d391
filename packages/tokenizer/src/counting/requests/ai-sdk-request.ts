import type { CountingEngine, RequestBreakdown } from '../counting-engine.js';
import { asString, breakdown, isRecord, measureUnknown } from '../counting-engine.js';
import { toJson } from '../measure-content.js';
import type { Measurement } from '../measurement.js';
import { addPart, emptyMeasurement } from '../measurement.js';
import type { FunctionTool } from '../tool-schemas.js';

/**
 * The parts of a Vercel AI SDK call (`generateText` / `streamText` options) that cost input
 * tokens. The SDK converts them to the model provider's wire format, so the model's provider
 * decides the overheads; this file only reads the SDK's shapes (v5 and v4 field names).
 */
export interface AiSdkRequest {
  system?: string;
  messages?: readonly { role?: string; content?: unknown }[];
  tools?: Readonly<Record<string, unknown>> | readonly unknown[];
}

function bytesOf(data: unknown): string | undefined {
  if (typeof data === 'string') {
    if (data.startsWith('data:')) return data.slice(data.indexOf(',') + 1);
    return /^[a-z]+:\/\//i.test(data) ? undefined : data;
  }
  if (ArrayBuffer.isView(data))
    return Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('base64');
  return undefined;
}

function measureFile(part: Record<string, unknown>, engine: CountingEngine, into: Measurement): void {
  const mediaType = asString(part.mediaType ?? part.mimeType);
  if (typeof part.filename === 'string') addPart(into, 'text', engine.exact(part.filename));
  const base64 = bytesOf(part.data);
  if (mediaType.startsWith('image/')) into.fixedTokens += engine.context.imageTokens;
  else if (base64 !== undefined && mediaType.startsWith('text/'))
    addPart(into, 'text', engine.context.exactBase64Text(base64));
  else if (base64 !== undefined && mediaType === 'application/pdf') {
    into.fixedTokens += engine.context.pdfPages(base64) * engine.context.documentPageTokens;
  } else into.fixedTokens += engine.context.documentPageTokens;
}

/** v5 `output` ({ type: 'text' | 'json' | 'error-text' | 'error-json' | 'content', value }) or v4 `result`. */
function toolOutputTokens(part: Record<string, unknown>, engine: CountingEngine, into: Measurement): number {
  const output = part.output;
  if (!isRecord(output))
    return engine.exact(typeof part.result === 'string' ? part.result : toJson(part.result));
  const prefix =
    typeof output.type === 'string' && output.type.startsWith('error') ? engine.exact('error') : 0;
  if (output.type === 'text' || output.type === 'error-text')
    return prefix + engine.exact(asString(output.value));
  if (output.type === 'content' && Array.isArray(output.value)) {
    let tokens = 0;
    for (const item of output.value) {
      if (isRecord(item) && item.type === 'text') tokens += engine.exact(asString(item.text));
      else if (
        isRecord(item) &&
        (item.type === 'media' || item.type === 'image-data' || item.type === 'file-data')
      )
        measureFile(item, engine, into);
      else measureUnknown(item, engine, into);
    }
    return tokens;
  }
  return prefix + engine.exact(toJson(output.value));
}

/** One content part of an AI SDK message. */
export function measureAiSdkPart(part: unknown, engine: CountingEngine, into: Measurement): void {
  if (!isRecord(part)) return;
  switch (part.type) {
    case 'text':
      addPart(into, 'text', engine.exact(asString(part.text)));
      return;
    case 'image':
      into.fixedTokens += engine.context.imageTokens;
      return;
    case 'file':
      measureFile(part, engine, into);
      return;
    case 'reasoning':
      addPart(into, 'reasoning', engine.exact(asString(part.text)));
      return;
    case 'redacted-reasoning':
      addPart(into, 'reasoning', engine.exact(asString(part.data)));
      return;
    case 'tool-call':
      addPart(
        into,
        'toolCall',
        engine.exact(asString(part.toolName)) + engine.exact(toJson(part.input ?? part.args)),
      );
      return;
    case 'tool-result':
      addPart(
        into,
        'toolResult',
        engine.exact(asString(part.toolName)) + toolOutputTokens(part, engine, into),
      );
      return;
    default:
      measureUnknown(part, engine, into);
  }
}

/**
 * A tool's input schema as JSON Schema: the SDK's `jsonSchema()` wrapper keeps it in
 * `.jsonSchema`; a plain object is taken as JSON Schema; anything else (a live zod schema)
 * cannot be rendered here and counts as an empty schema, so convert zod tools first.
 */
function schemaOf(tool: Record<string, unknown>): unknown {
  const schema = tool.inputSchema ?? tool.parameters;
  if (isRecord(schema) && isRecord(schema.jsonSchema)) return schema.jsonSchema;
  if (isRecord(schema) && ('type' in schema || 'properties' in schema || '$schema' in schema)) return schema;
  return {};
}

function functionTools(tools: AiSdkRequest['tools']): FunctionTool[] {
  if (!tools) return [];
  const entries: [string, unknown][] = Array.isArray(tools)
    ? tools.map((tool) => [isRecord(tool) ? asString(tool.name) : '', tool])
    : Object.entries(tools);
  return entries.map(([name, tool]) => {
    const record = isRecord(tool) ? tool : {};
    return { name, description: asString(record.description), parameters: schemaOf(record) };
  });
}

export function countAiSdkRequest(
  request: AiSdkRequest,
  engine: CountingEngine,
  toolResultsAreMessages: boolean,
): RequestBreakdown {
  const system = emptyMeasurement();
  if (request.system) {
    system.messages = 1;
    addPart(system, 'text', engine.exact(request.system));
  }
  const messages = emptyMeasurement();
  for (const message of request.messages ?? []) {
    const target = message.role === 'system' ? system : messages;
    const content = message.content;
    const parts =
      typeof content === 'string' ? [{ type: 'text', text: content }] : Array.isArray(content) ? content : [];
    const results = parts.filter((part) => isRecord(part) && part.type === 'tool-result').length;
    // OpenAI sends every tool result as its own `tool` message.
    target.messages += message.role === 'tool' && toolResultsAreMessages ? Math.max(1, results) : 1;
    for (const part of parts) measureAiSdkPart(part, engine, target);
  }
  return breakdown(engine, system, messages, engine.toolTokens(functionTools(request.tools), 'unknown'));
}
