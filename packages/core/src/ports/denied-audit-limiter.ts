import type { ArtifactAuditEvent } from './artifact-store.js';

/** How many refused reads a tenant's audit log takes per window. */
export interface DeniedAuditLimits {
  /**
   * Length of one window.
   * @defaultValue 60000
   */
  windowMs: number;
  /**
   * Denied-read records written per tenant and window; further refusals are not recorded.
   * @defaultValue 100
   */
  maxRecordsPerWindow: number;
}

/** 100 records per tenant per minute. */
export const defaultDeniedAuditLimits: DeniedAuditLimits = { windowMs: 60_000, maxRecordsPerWindow: 100 };

/** What to do with a refusal: record it, record the one "limit reached" notice, or skip it. */
export type DeniedAuditVerdict =
  | { kind: 'record' }
  | { kind: 'record-limit-notice'; reason: string }
  | { kind: 'skip' };

interface TenantWindow {
  startedAt: number;
  recorded: number;
  /** `artifactId requesterId reason` of the refusals recorded in this window. */
  seen: Set<string>;
}

/**
 * Keeps denied reads from growing a tenant's audit log without bound (ADR-0058). Per tenant and
 * window: a repeated refusal (same artifact, requester and reason) is recorded once; at most
 * `maxRecordsPerWindow` refusals are recorded, the last of them saying that the limit was reached.
 * Successful reads are never limited. State is per store instance and bounded: one window per
 * tenant that was refused recently, each holding at most `maxRecordsPerWindow` keys.
 */
export class DeniedAuditLimiter {
  private readonly limits: DeniedAuditLimits;
  private readonly windows = new Map<string, TenantWindow>();

  /**
   * @param limits - Any of the limits; the rest are {@link defaultDeniedAuditLimits}.
   * @throws RangeError when `windowMs` is not positive or `maxRecordsPerWindow` is below 1.
   */
  constructor(limits: Partial<DeniedAuditLimits> = {}) {
    this.limits = { ...defaultDeniedAuditLimits, ...limits };
    if (!(this.limits.windowMs > 0) || !(this.limits.maxRecordsPerWindow >= 1)) {
      throw new RangeError('windowMs must be positive and maxRecordsPerWindow at least 1');
    }
  }

  /**
   * What to do with one refusal, counting it against its tenant's window.
   *
   * @param event - The refusal's tenant, artifact, requester and reason.
   * @param now - The time of the refusal.
   * @returns Record it, record it as the limit notice, or skip it.
   */
  verdict(
    event: Pick<ArtifactAuditEvent, 'tenantId' | 'artifactId' | 'requesterId' | 'reason'>,
    now: Date,
  ): DeniedAuditVerdict {
    const at = now.getTime();
    this.forgetOldWindows(at);
    let window = this.windows.get(event.tenantId);
    if (!window || at - window.startedAt >= this.limits.windowMs) {
      window = { startedAt: at, recorded: 0, seen: new Set() };
      this.windows.set(event.tenantId, window);
    }
    const key = `${event.artifactId} ${event.requesterId} ${event.reason ?? ''}`;
    if (window.seen.has(key) || window.recorded >= this.limits.maxRecordsPerWindow) {
      return { kind: 'skip' };
    }
    window.seen.add(key);
    window.recorded += 1;
    if (window.recorded === this.limits.maxRecordsPerWindow) {
      const reason = `${event.reason ?? 'denied'}; audit limit of ${this.limits.maxRecordsPerWindow} refusals per ${this.limits.windowMs / 1000} s reached: further refusals in this window are not recorded`;
      return { kind: 'record-limit-notice', reason };
    }
    return { kind: 'record' };
  }

  private forgetOldWindows(at: number): void {
    for (const [tenantId, window] of this.windows) {
      if (at - window.startedAt >= this.limits.windowMs) this.windows.delete(tenantId);
    }
  }
}
