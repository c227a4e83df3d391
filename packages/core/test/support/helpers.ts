import type { ThreadMessage } from '../../src/index.js';

/** A stand-in tokenizer for tests: about four characters per token plus a per-message overhead. */
export function approximateTokens(message: Pick<ThreadMessage, 'content'>): number {
  return 4 + Math.ceil(JSON.stringify(message.content).length / 4);
}

/** Freeze a value and everything under it, so any mutation by the code under test throws. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
