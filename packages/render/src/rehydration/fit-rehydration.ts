import type { Piece } from '../cache/render-cache.js';
import type { PieceMaker } from '../plan/piece-maker.js';
import { rehydrationText } from '../synthetic-text.js';
import type { FetchedArtifact } from './gather-rehydration.js';
import { isMediaType } from './read-artifact-tool.js';
import type { RehydrationEvent } from './rehydration-types.js';

export interface FittedRehydration {
  pieces: Piece[];
  tokens: number;
  events: RehydrationEvent[];
  injected: string[];
}

/**
 * Fit fetched artifacts, in order, into the rehydration allowance: each truncated to the per-artifact
 * maximum and to what is left, as one ephemeral user message. An artifact that cannot fit at all is
 * blocked for budget. Rehydration only uses room the conversation leaves, so it never pushes the
 * request over the ceiling and never causes the conversation to be compacted.
 */
export function fitRehydration(
  fetched: readonly FetchedArtifact[],
  allowance: number,
  maxTokensPerArtifact: number,
  turn: number,
  maker: PieceMaker,
): FittedRehydration {
  const fitted: FittedRehydration = { pieces: [], tokens: 0, events: [], injected: [] };
  let remaining = Math.max(0, allowance);
  for (const artifact of fetched) {
    const piece = fitOne(artifact, Math.min(maxTokensPerArtifact, remaining), remaining, maker);
    if (!piece) {
      fitted.events.push({
        name: 'compaction_rehydration_blocked',
        artifactId: artifact.artifactId,
        turn,
        trigger: artifact.trigger,
        reason: 'budget',
        sensitivity: artifact.sensitivity,
        detail: `${remaining} rehydration tokens left`,
      });
      continue;
    }
    remaining -= piece.piece.tokens;
    fitted.tokens += piece.piece.tokens;
    fitted.pieces.push(piece.piece);
    fitted.injected.push(artifact.artifactId);
    fitted.events.push({
      name: 'compaction_rehydrated',
      artifactId: artifact.artifactId,
      turn,
      trigger: artifact.trigger,
      sensitivity: artifact.sensitivity,
      tokens: piece.piece.tokens,
      truncated: piece.truncated,
    });
  }
  return fitted;
}

/** Smallest content worth injecting; below it the artifact is blocked for budget instead. */
const MINIMUM_CONTENT_TOKENS = 16;

function fitOne(
  artifact: FetchedArtifact,
  contentCap: number,
  messageCap: number,
  maker: PieceMaker,
): { piece: Piece; truncated: boolean } | undefined {
  // An image or document is shown whole, as itself, or not at all (ADR-0310): base64 is never text.
  if (artifact.contentType !== undefined && isMediaType(artifact.contentType)) {
    const piece = maker.rehydratedMedium(artifact.artifactId, artifact.contentType, artifact.content);
    return piece !== null && piece.tokens <= messageCap ? { piece, truncated: false } : undefined;
  }
  let cap = contentCap;
  while (cap >= MINIMUM_CONTENT_TOKENS) {
    const content = maker.truncated(artifact.artifactId, artifact.content, cap);
    const text = rehydrationText(artifact.artifactId, content.text, content.truncated ? cap : undefined);
    const piece = maker.text(text, 'user');
    if (piece.tokens <= messageCap) return { piece, truncated: content.truncated };
    // The header and message overhead did not fit: shrink the content by the overshoot.
    cap = Math.min(cap - 1, content.tokens - (piece.tokens - messageCap));
  }
  return undefined;
}
