/**
 * What a piece of content costs before any model-specific scaling: exact base-encoding tokens
 * and block counts per part kind, plus fixed estimates (images, documents) that are never
 * scaled. A `CountingProfile` turns a measurement into the model's tokens.
 */
export type PartKind = 'text' | 'toolCall' | 'toolResult' | 'reasoning';

/** Every part kind, in a fixed order. */
export const partKinds: readonly PartKind[] = ['text', 'toolCall', 'toolResult', 'reasoning'];

/** The exact size of one part kind. */
export interface PartMeasure {
  /** Exact tokens of the part's text in the base encoding. */
  tokens: number;
  /** How many blocks of this kind. */
  blocks: number;
}

/** Exact base-encoding sizes of some content, before a model's calibration. */
export interface Measurement {
  /** Messages measured (each pays the calibration's message overhead). */
  messages: number;
  parts: Record<PartKind, PartMeasure>;
  /** Images and documents: documented per-item estimates, already in the model's tokens. */
  fixedTokens: number;
}

/**
 * A measurement of nothing, to add to.
 *
 * @returns A new, zeroed measurement.
 */
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

/**
 * Adds `source` into `target`.
 *
 * @param target - Changed in place.
 * @param source - Left unchanged.
 * @returns `target`.
 */
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
