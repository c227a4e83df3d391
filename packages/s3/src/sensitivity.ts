import type { ArtifactSensitivity } from '@compactor/core';

const RANK: Record<ArtifactSensitivity, number> = { public: 0, internal: 1, confidential: 2, restricted: 3 };

/** The stricter of two sensitivities: a second put can raise an artifact's, never lower it. */
export function stricterSensitivity(a: ArtifactSensitivity, b: ArtifactSensitivity): ArtifactSensitivity {
  return RANK[a] >= RANK[b] ? a : b;
}

/** The later of two expiries, where undefined means "never" and so always wins. */
export function laterExpiry(a: string | undefined, b: string | undefined): string | undefined {
  if (a === undefined || b === undefined) return undefined;
  return Date.parse(a) >= Date.parse(b) ? a : b;
}

export function isExpired(expiresAt: string | undefined, now: Date): boolean {
  return expiresAt !== undefined && now.getTime() >= Date.parse(expiresAt);
}
