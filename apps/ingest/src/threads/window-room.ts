import { type CompactionPolicyInput, parsePolicy, policyForWindow, ValidationError } from '@compactor/core';

/** The fewest input tokens a thread's window must leave after its reserves. */
export const MIN_INPUT_TOKENS = 256;

/**
 * Refuse, at create, a window that leaves no room for input: `contextWindow` less the output
 * reserve (the one the request names, or the default as the window scales it) and the safety buffer
 * must be at least MIN_INPUT_TOKENS. Otherwise every later render would be a 422.
 */
export function requireRoomForInput(
  contextWindow: number,
  policy: Partial<CompactionPolicyInput> | undefined,
): void {
  const scaled = policyForWindow(parsePolicy(policy ?? {}), contextWindow);
  const outputReserve = policy?.outputReserveTokens ?? scaled.outputReserveTokens;
  const room = contextWindow - outputReserve - scaled.safetyBufferTokens;
  if (room >= MIN_INPUT_TOKENS) return;
  throw new ValidationError(
    `a context window of ${contextWindow} tokens leaves ${Math.max(room, 0)} for input after the output ` +
      `reserve (${outputReserve}) and safety buffer (${scaled.safetyBufferTokens}); at least ${MIN_INPUT_TOKENS} are needed`,
    [
      {
        path: 'contextWindow',
        message: `must exceed outputReserveTokens + safetyBufferTokens + ${MIN_INPUT_TOKENS}`,
      },
    ],
  );
}
