/**
 * Plain text of a message's text parts (tool calls, results and media excluded).
 *
 * @param content - A message's content parts.
 * @returns The texts joined by newlines, trimmed.
 */
export function textOf(content: readonly { type: string; text?: string }[]): string {
  return content
    .filter((part) => part.type === 'text' && typeof part.text === 'string')
    .map((part) => part.text as string)
    .join('\n')
    .trim();
}

/**
 * Sentences and list items, in order; code fences are skipped (they are not statements).
 *
 * @param text - Prose, possibly with lists and code.
 * @returns The non-empty sentences.
 */
export function sentencesOf(text: string): string[] {
  return sentencesOfProse(withoutCodeFences(text));
}

/**
 * The text with each fenced code block replaced by a space: what {@link sentencesOf} splits.
 *
 * @param text - Prose, possibly with code.
 * @returns The prose.
 */
export function withoutCodeFences(text: string): string {
  return text.replace(/```[\s\S]*?```/g, ' ');
}

/**
 * Sentences and list items of text whose code fences are already gone ({@link withoutCodeFences}).
 *
 * @param withoutCode - Prose without code fences.
 * @returns The non-empty sentences.
 */
export function sentencesOfProse(withoutCode: string): string[] {
  const pieces: string[] = [];
  for (const line of withoutCode.split('\n')) {
    const trimmed = line.trim();
    if (trimmed.length === 0) continue;
    for (const sentence of trimmed.split(/(?<=[.!?])\s+(?=[A-Z0-9"'`(])/)) {
      const cleaned = sentence.trim();
      if (cleaned.length > 0) pieces.push(cleaned);
    }
  }
  return pieces;
}

/**
 * The last-resort fallback (ADR-0017): keep the first and last characters, mark the cut.
 *
 * @param text - The text to shorten.
 * @param headChars - Characters kept from the start.
 * @param tailChars - Characters kept from the end.
 * @returns `text` unchanged when it fits, else head, a `[truncated N characters]` line and tail.
 */
export function headTailTruncate(text: string, headChars = 2000, tailChars = 2000): string {
  if (text.length <= headChars + tailChars) return text;
  return `${text.slice(0, headChars)}\n[truncated ${text.length - headChars - tailChars} characters]\n${tailChars > 0 ? text.slice(-tailChars) : ''}`;
}

/** One line of at most `maxChars` characters (core's `clipLine`: one definition for summarizer and planner). */
export { clipLine as clip } from '@compactor/core';
