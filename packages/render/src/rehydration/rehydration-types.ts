import type { ArtifactSensitivity, RehydrationPolicy } from '@compactor/core';

/**
 * What the caller keeps between renders for rehydration (render itself is stateless): the turn at
 * which each artifact was last injected, for cooldowns and for re-showing it within the same turn.
 */
export interface RehydrationState {
  readonly injectedAtTurn: Readonly<Record<string, number>>;
}

/** No artifact injected yet. */
export const emptyRehydrationState: RehydrationState = { injectedAtTurn: {} };

/** The rehydration settings of one render call. */
export interface RehydrationOptions {
  /** @defaultValue the thread policy's `rehydration` */
  policy?: RehydrationPolicy;
  /** @defaultValue {@link emptyRehydrationState} */
  state?: RehydrationState;
}

/** Why a rehydration was not performed. */
export type RehydrationBlockReason =
  | 'cooldown'
  | 'max_per_turn'
  | 'sensitivity'
  | 'access_denied'
  | 'not_found'
  | 'budget'
  | 'no_security_context'
  | 'no_artifact_store'
  | 'invalid_input'
  | 'unknown_artifact';

/** A rehydration performed or blocked; the caller may persist it as a lifecycle event. */
export interface RehydrationEvent {
  name: 'compaction_rehydrated' | 'compaction_rehydration_blocked';
  artifactId: string;
  turn: number;
  /**
   * What asked for it: the agent's latest message naming it, a pending tool call naming it, a pending
   * call to a tool whose schema needs its output (`tool_schema`), the agent's latest message matching
   * its rehydrate hint (`hint`), an explicit read_artifact, or an earlier render of the same turn.
   */
  trigger: 'message' | 'tool_call' | 'tool_schema' | 'hint' | 'explicit' | 'same_turn';
  reason?: RehydrationBlockReason;
  detail?: string;
  sensitivity?: ArtifactSensitivity;
  tokens?: number;
  truncated?: boolean;
}
