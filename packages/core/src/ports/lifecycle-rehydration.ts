import type { LifecycleEvent } from './lifecycle-log.js';

/**
 * Rehydration's loop protections kept server-side (ADR-0191): the thread's lifecycle log is the
 * record of what was injected when, so every process (the ingest rendering prompts, the worker
 * planning) reads the same state, it survives restarts, and nothing else has to be stored.
 */

/** The turn each artifact was last injected at, from `compaction_rehydrated` events. */
export interface InjectedAtTurn {
  readonly injectedAtTurn: Readonly<Record<string, number>>;
}

function turnOf(event: LifecycleEvent): number | undefined {
  const turn = event.details?.turn;
  return typeof turn === 'number' && Number.isInteger(turn) ? turn : undefined;
}

function artifactOf(event: LifecycleEvent): string | undefined {
  const artifactId = event.details?.artifactId;
  return typeof artifactId === 'string' && artifactId.length > 0 ? artifactId : undefined;
}

/**
 * The rehydration state (cooldowns, same-turn re-injection) the lifecycle log implies: for each
 * artifact, the latest turn a `compaction_rehydrated` event records. Keys sorted.
 *
 * @param events - The thread's recent lifecycle events, any order.
 * @returns The state a renderer takes as `rehydration.state`.
 */
export function rehydrationStateFromLifecycle(events: readonly LifecycleEvent[]): InjectedAtTurn {
  const latest: Record<string, number> = {};
  for (const event of events) {
    if (event.name !== 'compaction_rehydrated') continue;
    const artifactId = artifactOf(event);
    const turn = turnOf(event);
    if (artifactId === undefined || turn === undefined) continue;
    if (latest[artifactId] === undefined || turn > latest[artifactId]) latest[artifactId] = turn;
  }
  const sorted: Record<string, number> = {};
  for (const artifactId of Object.keys(latest).sort()) sorted[artifactId] = latest[artifactId]!;
  return { injectedAtTurn: sorted };
}

/**
 * Whether content was rehydrated into a prompt of `turn` (ADR-0008's turn-level flag): the
 * worker's check then skips the aggressive rungs (externalize, drop) for that turn.
 *
 * @param events - The thread's recent lifecycle events.
 * @param turn - The thread's current turn.
 * @returns True when a `compaction_rehydrated` event records this turn.
 */
export function rehydrationHappenedInTurn(events: readonly LifecycleEvent[], turn: number): boolean {
  return events.some((event) => event.name === 'compaction_rehydrated' && turnOf(event) === turn);
}

/**
 * A key that names one rehydration outcome per artifact, turn and reason (or one retrieval per
 * turn and message set), so a renderer that renders the same turn many times records each once.
 *
 * @param event - A lifecycle event.
 * @returns The key.
 */
export function lifecycleRecordKey(event: LifecycleEvent): string {
  const details = event.details ?? {};
  const ids = Array.isArray(details.messageIds) ? (details.messageIds as unknown[]).join(',') : '';
  return [event.name, artifactOf(event) ?? '', turnOf(event) ?? '', details.reason ?? '', ids].join('|');
}
