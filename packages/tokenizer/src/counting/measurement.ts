/**
 * What a piece of content costs before any model-specific scaling: exact base-encoding tokens
 * and block counts per part kind, plus fixed estimates (images, documents) that are never
 * scaled. A `CountingProfile` turns a measurement into the model's tokens.
 */
export type PartKind = 'text' | 'toolCall' | 'toolResult' | 'reasoning';

export const partKinds: readonly PartKind[] = ['text', 'toolCall', 'toolResult', 'reasoning'];

export interface PartMeasure {
  /** Exact tokens of the part's text in the base encoding. */
  tokens: number;
  /** How many blocks of this kind. */
  blocks: number;
}

export interface Measurement {
  messages: number;
  parts: Record<PartKind, PartMeasure>;
  /** Images and documents: documented per-item estimates, already in the model's tokens. */
  fixedTokens: number;
}

export function emptyMeasurement(): Measurement {
  return {
    messages: 0,
    parts: {
      text: { tokens: 0, blocks: 0 },
      toolCall: { tokens: 0, blocks: 0 },
      toolResult: { tokens: 0, blocks: 0 },
      reasoning: { tokens: 0, blocks: 0 },
    },
    fixedTokens: 0,
  };
}

/** Adds `source` into `target` (mutates and returns `target`). */
export function addMeasurement(target: Measurement, source: Measurement): Measurement {
  target.messages += source.messages;
  target.fixedTokens += source.fixedTokens;
  for (const kind of partKinds) {
    target.parts[kind].tokens += source.parts[kind].tokens;
    target.parts[kind].blocks += source.parts[kind].blocks;
  }
  return target;
}

export function addPart(target: Measurement, kind: PartKind, tokens: number): void {
  target.parts[kind].tokens += tokens;
  target.parts[kind].blocks += 1;
}
