import type { ContentPart, DocumentPart, Message } from '@compactor/core';
import { stringifyJson } from '../json/stringify-json.js';
import { measureJsonEstimate } from './counting-engine.js';
import type { Measurement } from './measurement.js';
import { addPart, emptyMeasurement } from './measurement.js';

/** What measuring needs from the tokenizer: a cached exact counter and the per-item estimates. */
export interface MeasureContext {
  exact(text: string): number;
  imageTokens: number;
  documentPageTokens: number;
  /** Pages of a base64 PDF (cached by the tokenizer, since decoding a large PDF is not free). */
  pdfPages(base64: string): number;
  /** Exact tokens of a base64-encoded text document (cached by its base64 form). */
  exactBase64Text(base64: string): number;
}

/** JSON the way the wire carries tool input: key order kept, `undefined` input as `{}`. */
export function toJson(value: unknown): string {
  return stringifyJson(value ?? {}) ?? '{}';
}

function measureDocument(part: DocumentPart, context: MeasureContext, into: Measurement): void {
  if (part.title) addPart(into, 'text', context.exact(part.title));
  const { source } = part;
  if (source.kind === 'base64' && part.mediaType.startsWith('text/')) {
    addPart(into, 'text', context.exactBase64Text(source.data));
    return;
  }
  const pages =
    source.kind === 'base64' && part.mediaType === 'application/pdf' ? context.pdfPages(source.data) : 1;
  into.fixedTokens += pages * context.documentPageTokens;
}

/**
 * Adds one content part to `into`. Text counts its text; a tool call its name and JSON input; a
 * tool result its tool name, its content (string, or the JSON object) and, unless it
 * succeeded, its outcome word (the `is_error` framing); reasoning its text (never the
 * signature). Images and documents add fixed estimates: base64 data is never tokenized as text.
 * An opaque provider part counts as its JSON (ADR-0250).
 */
export function measurePart(part: ContentPart, context: MeasureContext, into: Measurement): void {
  switch (part.type) {
    case 'text':
      addPart(into, 'text', context.exact(part.text));
      return;
    case 'tool_call':
      addPart(into, 'toolCall', context.exact(part.name) + context.exact(toJson(part.input)));
      return;
    case 'tool_result': {
      const content = typeof part.content === 'string' ? part.content : toJson(part.content);
      const outcome = part.outcome === 'success' ? 0 : context.exact(part.outcome);
      addPart(into, 'toolResult', context.exact(part.toolName) + context.exact(content) + outcome);
      // A result's own images and documents (ADR-0311) cost what they cost anywhere else.
      for (const media of part.media ?? []) measurePart(media, context, into);
      return;
    }
    case 'reasoning':
      addPart(into, 'reasoning', context.exact(part.text));
      return;
    case 'image':
      into.fixedTokens += context.imageTokens;
      return;
    case 'document':
      measureDocument(part, context, into);
      return;
    case 'opaque':
      // A provider's wire object, sent as it came: its JSON estimate, as for any block not modelled (ADR-0250).
      measureJsonEstimate(part.payload, context, into);
      return;
  }
}

/**
 * One message's measurement. `toolResultsAreMessages`: the provider sends every tool result as
 * its own message (OpenAI's `tool` role), so a tool message with n results is n messages.
 */
export function measureMessage(
  message: Message,
  context: MeasureContext,
  toolResultsAreMessages = false,
): Measurement {
  const measurement = emptyMeasurement();
  const results = message.content.filter((part) => part.type === 'tool_result').length;
  measurement.messages = message.role === 'tool' && toolResultsAreMessages ? Math.max(1, results) : 1;
  // Where results are messages, a result's media follow in a user message of their own (ADR-0311).
  if (toolResultsAreMessages) {
    for (const part of message.content) {
      if (part.type === 'tool_result' && (part.media?.length ?? 0) > 0) measurement.messages += 1;
    }
  }
  for (const part of message.content) measurePart(part, context, measurement);
  return measurement;
}
