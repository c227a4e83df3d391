/** When an open circuit probes its queue again. */
export interface ProbeBackoff {
  /** Delay before the first probe after the circuit opens. Default 500 ms. */
  initialDelayMs: number;
  /** Cap of the doubling delay. Default 30 s. */
  maxDelayMs: number;
  /** A probe that has not answered after this long has failed. Default 1 s. */
  probeTimeoutMs: number;
}

/** 500 ms first, doubling to 30 s; a probe times out after 1 s. */
export const defaultProbeBackoff: ProbeBackoff = {
  initialDelayMs: 500,
  maxDelayMs: 30_000,
  probeTimeoutMs: 1_000,
};

export function resolveProbeBackoff(overrides: Partial<ProbeBackoff> = {}): ProbeBackoff {
  const backoff = { ...defaultProbeBackoff, ...overrides };
  for (const [name, value] of Object.entries(backoff)) {
    if (!Number.isFinite(value) || value < 1) throw new RangeError(`${name} must be at least 1 ms`);
  }
  if (backoff.maxDelayMs < backoff.initialDelayMs) {
    throw new RangeError('maxDelayMs must be at least initialDelayMs');
  }
  return backoff;
}

/** `initialDelayMs · 2^failedProbes`, capped at `maxDelayMs`. */
export function nextProbeDelay(failedProbes: number, backoff: ProbeBackoff): number {
  const doubled = backoff.initialDelayMs * 2 ** Math.min(failedProbes, 30);
  return Math.min(doubled, backoff.maxDelayMs);
}
