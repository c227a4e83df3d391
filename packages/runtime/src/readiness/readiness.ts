import type { ArtifactStore, EventStore } from '@compactor/core';

/** What `/readyz` reports. */
export interface Readiness {
  /** True when every check answered `ok`. */
  ok: boolean;
  /** Per dependency: `ok`, or what went wrong. */
  checks: Record<string, string>;
}

export type ReadinessProbe = () => Promise<unknown>;

/** Ids that no tenant uses; a probe reads them and expects "nothing there". */
const PROBE_TENANT = '__readiness__';
const PROBE_ARTIFACT_ID = `art_${'0'.repeat(64)}`;

/** A read that reaches the event store's backend (the directory, or MongoDB). */
export function eventStoreProbe(events: EventStore): ReadinessProbe {
  return () => events.getThread(PROBE_TENANT, PROBE_TENANT);
}

/** A read that reaches the artifact store's backend (the directory, or the S3 bucket). */
export function artifactStoreProbe(artifacts: ArtifactStore): ReadinessProbe {
  return () =>
    artifacts.getMetadata(PROBE_ARTIFACT_ID, {
      requesterId: PROBE_TENANT,
      tenantId: PROBE_TENANT,
      permissions: [],
    });
}

/**
 * Run every probe at once, each bounded by `timeoutMs` (a dependency that hangs, as BullMQ does
 * while Redis is down, reads as not ready instead of holding `/readyz` open).
 */
export async function checkReadiness(
  probes: Record<string, ReadinessProbe>,
  timeoutMs: number,
): Promise<Readiness> {
  const entries = await Promise.all(
    Object.entries(probes).map(async ([name, probe]) => [name, await runProbe(probe, timeoutMs)] as const),
  );
  const checks = Object.fromEntries(entries);
  return { ok: entries.every(([, result]) => result === 'ok'), checks };
}

async function runProbe(probe: ReadinessProbe, timeoutMs: number): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer within ${timeoutMs} ms`), timeoutMs);
  });
  const answered = Promise.resolve()
    .then(probe)
    .then(
      () => 'ok',
      (error: unknown) => `failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  try {
    return await Promise.race([answered, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
