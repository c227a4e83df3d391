import { join } from 'node:path';
import { encodePathSegment } from './path-segment.js';

/** Where everything lives under the data directory (README.md describes the same layout). */
export class DataLayout {
  constructor(readonly root: string) {}

  tenantSegment(tenantId: string): string {
    return encodePathSegment(tenantId, 'tenantId');
  }

  threadSegment(threadId: string): string {
    return encodePathSegment(threadId, 'threadId');
  }

  eventsDirectory(tenantSegment: string): string {
    return join(this.root, 'events', tenantSegment);
  }

  eventLog(tenantSegment: string, threadSegment: string): string {
    return join(this.eventsDirectory(tenantSegment), `${threadSegment}.log`);
  }

  pendingRoot(): string {
    return join(this.root, 'compaction-pending');
  }

  pendingMarker(tenantSegment: string, threadSegment: string): string {
    return join(this.pendingRoot(), tenantSegment, `${threadSegment}.json`);
  }

  planDirectory(tenantSegment: string, threadSegment: string): string {
    return join(this.root, 'plans', tenantSegment, threadSegment);
  }

  summaryFile(tenantSegment: string, keyDigest: string): string {
    return join(this.root, 'summaries', tenantSegment, `${keyDigest}.json`);
  }

  lifecycleLog(tenantSegment: string, threadSegment: string): string {
    return join(this.root, 'lifecycle', tenantSegment, `${threadSegment}.log`);
  }

  /**
   * Artifacts live under their tenant (ADR-0058): a lookup is made in the asking tenant's directory,
   * so another tenant's artifact is as absent as one never stored. Artifact ids are validated
   * `art_<hex>` before they reach here; two hex digits shard the directory.
   */
  artifactDirectory(tenantSegment: string, artifactId: string): string {
    return join(this.root, 'artifacts', tenantSegment, artifactId.slice(4, 6));
  }

  artifactContent(tenantSegment: string, artifactId: string): string {
    return join(this.artifactDirectory(tenantSegment, artifactId), `${artifactId}.content`);
  }

  artifactMetadata(tenantSegment: string, artifactId: string): string {
    return join(this.artifactDirectory(tenantSegment, artifactId), `${artifactId}.json`);
  }

  auditLog(tenantSegment: string): string {
    return join(this.root, 'artifact-audit', `${tenantSegment}.log`);
  }

  lockFile(): string {
    return join(this.root, 'LOCK');
  }

  /** Shared mode: one file per process that has the directory open. */
  sharersDirectory(): string {
    return join(this.root, 'SHARERS');
  }

  /** Shared mode: the cross-process lock files (`<name>.lock` directories). */
  locksDirectory(): string {
    return join(this.root, 'locks');
  }

  formatFile(): string {
    return join(this.root, 'FORMAT.json');
  }
}
