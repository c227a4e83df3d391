import { CompactorError } from '@compactor/core';

/** The token figures of a render that could not fit, for the error and for logs. */
export interface RenderBudgetNumbers {
  /** The hard ceiling: maxInputTokens − outputReserveTokens − safetyBufferTokens. */
  ceiling: number;
  system: number;
  tools: number;
  formatting: number;
  /** The protected tail (recent turns, extended to keepRecentTokens), as rendered. */
  protectedTail: number;
  /** What the messages could have used: ceiling − system − tools − formatting. */
  availableForMessages: number;
}

/**
 * Even the system prompt, the tools and the protected tail do not fit under the ceiling: no valid
 * request exists without compacting what the policy protects. Carries the numbers.
 */
export class RenderBudgetExceededError extends CompactorError {
  readonly numbers: RenderBudgetNumbers;
  /** @param numbers - The ceiling and what the fixed parts and the protected tail needed. */
  constructor(numbers: RenderBudgetNumbers) {
    super(
      'budget_exceeded',
      `the system prompt (${numbers.system}), tools (${numbers.tools}), formatting (${numbers.formatting}) and protected tail (${numbers.protectedTail}) need ${
        numbers.system + numbers.tools + numbers.formatting + numbers.protectedTail
      } tokens, over the ceiling of ${numbers.ceiling}`,
      { details: { ...numbers } },
    );
    this.name = 'RenderBudgetExceededError';
    this.numbers = numbers;
  }
}
