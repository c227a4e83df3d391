import type { ProviderName } from '@compactor/core';
import type { CountingEngine } from '../counting-engine.js';
import { isRecord } from '../counting-engine.js';
import type { Measurement } from '../measurement.js';
import { emptyMeasurement } from '../measurement.js';
import { measureAiSdkPart } from './ai-sdk-request.js';
import { measureAnthropicContent } from './anthropic-request.js';
import { measureOpenAiContent } from './openai-chat-request.js';

/** The content-part types each wire format sends an image or a document as. */
const mediaPartTypes: Readonly<Record<ProviderName, ReadonlySet<string>>> = {
  anthropic: new Set(['image', 'document']),
  'openai-chat': new Set(['image_url', 'input_image', 'file']),
  'openai-responses': new Set(['input_image', 'input_file']),
  'ai-sdk': new Set(['image', 'file']),
};

/**
 * One image or document part of a rendered request, measured as the request counter measures it
 * inside a message (the per-image estimate, a PDF's pages, a title's text), without the message's
 * framing; `undefined` for a part that is not media in `provider`'s format.
 */
export function measureMediaPart(
  part: unknown,
  provider: ProviderName,
  engine: CountingEngine,
): Measurement | undefined {
  if (!isRecord(part) || typeof part.type !== 'string' || !mediaPartTypes[provider].has(part.type)) {
    return undefined;
  }
  const into = emptyMeasurement();
  switch (provider) {
    case 'anthropic':
      measureAnthropicContent([part], engine, into);
      break;
    case 'openai-chat':
      measureOpenAiContent([part], engine, into);
      break;
    case 'openai-responses':
      // A Responses file part is read as a Chat file part, as the Responses counter does.
      measureOpenAiContent([part.type === 'input_file' ? { type: 'file', file: part } : part], engine, into);
      break;
    default:
      measureAiSdkPart(part, engine, into);
  }
  return into;
}
