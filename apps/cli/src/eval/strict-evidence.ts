import { containsNormalized } from './request-text.js';

export interface EvidenceTurn {
  id: string;
  /** The turn's text as the conversation has it (captions included in captions mode). */
  text: string;
}

/**
 * Strict evidence: every evidence turn of a question is in the request — its whole text anywhere
 * (verbatim as a message, quoted inside a summary, or in a recall block), or its message inside an
 * externalized artifact whose id the request names. A question whose evidence names no turn of the
 * conversation is never satisfied (it still counts in the denominator).
 */
export function evidencePresent(
  requestText: string,
  evidence: readonly EvidenceTurn[],
  artifacts: ReadonlyMap<string, ReadonlySet<string>>,
): boolean {
  if (evidence.length === 0) return false;
  return evidence.every(
    (turn) => containsNormalized(requestText, turn.text) || behindArtifact(turn.id, requestText, artifacts),
  );
}

function behindArtifact(
  messageId: string,
  requestText: string,
  artifacts: ReadonlyMap<string, ReadonlySet<string>>,
): boolean {
  for (const [artifactId, messageIds] of artifacts) {
    if (messageIds.has(messageId) && containsNormalized(requestText, artifactId)) return true;
  }
  return false;
}
