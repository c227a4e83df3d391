import {
  type ArtifactSensitivity,
  type ArtifactStore,
  artifactAccessDecision,
  type CompactionPlan,
  type RehydrationPolicy,
  type SecurityContext,
  type ThreadMessage,
  type ToolDefinition,
} from '@compactor/core';
import type { ToolExchangeIndex } from '../plan/tool-exchanges.js';
import {
  findArtifactReferences,
  findImplicitArtifactReferences,
  knownArtifactIds,
} from './artifact-references.js';
import type { RehydrationEvent, RehydrationState } from './rehydration-types.js';

/** Artifact content fetched for this render, not yet fitted into the budget. */
export interface FetchedArtifact {
  artifactId: string;
  content: string;
  /** The artifact's content type: an image or PDF is shown as itself (ADR-0310). */
  contentType?: string | undefined;
  sensitivity: ArtifactSensitivity;
  trigger: RehydrationEvent['trigger'];
}

export interface GatheredRehydration {
  fetched: FetchedArtifact[];
  blocked: RehydrationEvent[];
}

export interface GatherInput {
  messages: readonly ThreadMessage[];
  exchanges: ToolExchangeIndex;
  agent: string | undefined;
  plan: CompactionPlan | null;
  policy: RehydrationPolicy;
  state: RehydrationState;
  turn: number;
  artifactStore: ArtifactStore | undefined;
  securityContext: SecurityContext | undefined;
  /** The tools offered with this render (their schemas may declare what output they need). */
  tools?: readonly ToolDefinition[];
}

/**
 * The automatic half of rehydration (ADR-0008). Artifacts already injected earlier in this
 * turn are shown again (the content is for the whole turn), then those named by the agent's latest
 * message or a pending tool call, then (ADR-0191) those a pending call's tool schema needs and those
 * whose rehydrate hint the agent's latest message matches. Each must be out of its cooldown, within the per-turn maximum, of a
 * sensitivity that may rehydrate automatically (confidential and restricted need an explicit
 * read_artifact), and readable by the security context (tenant and permissions). Every refusal
 * becomes a blocked event.
 */
export async function gatherRehydration(input: GatherInput): Promise<GatheredRehydration> {
  const { policy, state, turn } = input;
  const gathered: GatheredRehydration = { fetched: [], blocked: [] };
  if (!policy.enabled || policy.maxArtifactsPerTurn === 0) return gathered;
  const known = knownArtifactIds(input.plan);
  if (known.length === 0) return gathered;
  const knownSet = new Set(known);
  const candidates: { artifactId: string; trigger: RehydrationEvent['trigger'] }[] = Object.keys(
    state.injectedAtTurn,
  )
    .filter((artifactId) => state.injectedAtTurn[artifactId] === turn && knownSet.has(artifactId))
    .sort()
    .map((artifactId) => ({ artifactId, trigger: 'same_turn' as const }));
  const listed = new Set(candidates.map((candidate) => candidate.artifactId));
  for (const reference of findArtifactReferences(input.messages, input.exchanges, input.agent, known)) {
    if (!listed.has(reference.artifactId)) candidates.push(reference);
    listed.add(reference.artifactId);
  }
  const implicit = findImplicitArtifactReferences(
    input.messages,
    input.exchanges,
    input.agent,
    input.plan,
    input.tools ?? [],
    listed,
  );
  candidates.push(...implicit.filter((reference) => knownSet.has(reference.artifactId)));
  const block = (
    candidate: (typeof candidates)[number],
    reason: NonNullable<RehydrationEvent['reason']>,
    extra: Partial<RehydrationEvent> = {},
  ) => {
    gathered.blocked.push({
      name: 'compaction_rehydration_blocked',
      artifactId: candidate.artifactId,
      turn,
      trigger: candidate.trigger,
      reason,
      ...extra,
    });
  };
  const allowed = new Set(policy.autoRehydrateSensitivities);
  for (const candidate of candidates) {
    const lastTurn = state.injectedAtTurn[candidate.artifactId];
    if (lastTurn !== undefined && lastTurn !== turn && turn - lastTurn < policy.cooldownTurns) {
      block(candidate, 'cooldown', {
        detail: `injected at turn ${lastTurn}; cooldown ${policy.cooldownTurns} turns`,
      });
      continue;
    }
    if (gathered.fetched.length >= policy.maxArtifactsPerTurn) {
      block(candidate, 'max_per_turn', {
        detail: `at most ${policy.maxArtifactsPerTurn} artifacts per turn`,
      });
      continue;
    }
    const { artifactStore, securityContext } = input;
    if (!artifactStore) {
      block(candidate, 'no_artifact_store');
      continue;
    }
    if (!securityContext) {
      block(candidate, 'no_security_context');
      continue;
    }
    const metadata = await artifactStore.getMetadata(candidate.artifactId, securityContext);
    if (!metadata) {
      block(candidate, 'not_found');
      continue;
    }
    if (!allowed.has(metadata.sensitivity)) {
      block(candidate, 'sensitivity', {
        sensitivity: metadata.sensitivity,
        detail: 'automatic rehydration is not allowed for this sensitivity; use read_artifact explicitly',
      });
      continue;
    }
    const decision = artifactAccessDecision(metadata, securityContext);
    if (!decision.allowed) {
      block(candidate, 'access_denied', { sensitivity: metadata.sensitivity, detail: decision.reason });
      continue;
    }
    const read = await artifactStore.retrieve(candidate.artifactId, securityContext);
    if (read.status !== 'ok') {
      block(candidate, read.status === 'denied' ? 'access_denied' : 'not_found', {
        sensitivity: metadata.sensitivity,
        ...(read.status === 'denied' ? { detail: read.reason } : {}),
      });
      continue;
    }
    gathered.fetched.push({
      artifactId: candidate.artifactId,
      content: read.content,
      contentType: metadata.contentType,
      sensitivity: metadata.sensitivity,
      trigger: candidate.trigger,
    });
  }
  return gathered;
}
