import type { ArtifactSensitivity } from '@compactor/core';

const RANK: Record<ArtifactSensitivity, number> = { public: 0, internal: 1, confidential: 2, restricted: 3 };

export function stricterSensitivity(
  left: ArtifactSensitivity,
  right: ArtifactSensitivity,
): ArtifactSensitivity {
  return RANK[right] > RANK[left] ? right : left;
}

/** The later of two expiries, where undefined means "never". */
export function laterExpiry(left: string | undefined, right: string | undefined): string | undefined {
  if (left === undefined || right === undefined) return undefined;
  return Date.parse(right) > Date.parse(left) ? right : left;
}
