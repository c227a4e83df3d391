import type { RehydrationState } from './rehydration-types.js';

/**
 * The state after this render: artifacts injected now are stamped with this turn; entries whose
 * cooldown has passed are forgotten, so the state stays small. Keys sorted: same inputs, same bytes.
 *
 * @param state - The state before this render.
 * @param injected - Artifact ids injected now.
 * @param turn - The current turn.
 * @param cooldownTurns - The policy's cooldown (at least 1 is applied).
 * @returns The new state.
 */
export function nextRehydrationState(
  state: RehydrationState,
  injected: readonly string[],
  turn: number,
  cooldownTurns: number,
): RehydrationState {
  const merged: Record<string, number> = { ...state.injectedAtTurn };
  for (const artifactId of injected) merged[artifactId] = turn;
  const next: Record<string, number> = {};
  for (const artifactId of Object.keys(merged).sort()) {
    const lastTurn = merged[artifactId]!;
    if (lastTurn > turn || turn - lastTurn < Math.max(1, cooldownTurns)) next[artifactId] = lastTurn;
  }
  return { injectedAtTurn: next };
}
