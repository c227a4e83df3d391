import { ValidationError } from '@compactor/core';
import { adapters, detectionOrder } from './formats/adapters.js';
import { TranscriptSource } from './shared/transcript-source.js';
import type { TranscriptFormat } from './types.js';

/**
 * Which format a transcript is in.
 *
 * @param text - The transcript's contents.
 * @param fileName - Its file name, a hint for some formats.
 * @returns The first format, in detection order, that matches.
 * @throws ValidationError listing every format tried and why it did not match, when none does.
 */
export function detectFormat(text: string, fileName?: string): TranscriptFormat {
  return detectSourceFormat(new TranscriptSource(text, fileName));
}

export function detectSourceFormat(source: TranscriptSource): TranscriptFormat {
  const reasons: Array<{ path: string; message: string }> = [];
  for (const format of detectionOrder) {
    const reason = adapters[format].mismatch(source);
    if (reason === undefined) return format;
    reasons.push({ path: format, message: reason });
  }
  const name = source.fileName === undefined ? 'the transcript' : source.fileName;
  throw new ValidationError(
    `could not detect the format of ${name}; tried ${detectionOrder.join(', ')}`,
    reasons,
  );
}
