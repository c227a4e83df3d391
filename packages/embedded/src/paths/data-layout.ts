import { join } from 'node:path';
import { encodePathSegment } from './path-segment.js';

/** Where everything lives under the data directory (README.md describes the same layout). */
export class DataLayout {
  /** @param root - The absolute data directory. */
  constructor(readonly root: string) {}

  /**
   * A tenant id as a file-name segment.
   *
   * @param tenantId - The tenant id.
   * @returns The encoded segment.
   * @throws ValidationError for an empty or ill-formed id.
   */
  tenantSegment(tenantId: string): string {
    return encodePathSegment(tenantId, 'tenantId');
  }

  /**
   * A thread id as a file-name segment.
   *
   * @param threadId - The thread id.
   * @returns The encoded segment.
   * @throws ValidationError for an empty or ill-formed id.
   */
  threadSegment(threadId: string): string {
    return encodePathSegment(threadId, 'threadId');
  }

  /**
   * A tenant's event logs.
   *
   * @param tenantSegment - The encoded tenant id ({@link DataLayout.tenantSegment}).
   * @returns An absolute path.
   */
  eventsDirectory(tenantSegment: string): string {
    return join(this.root, 'events', tenantSegment);
  }

  /**
   * A thread's event log.
   *
   * @param tenantSegment - The encoded tenant id ({@link DataLayout.tenantSegment}).
   * @param threadSegment - The encoded thread id ({@link DataLayout.threadSegment}).
   * @returns An absolute path.
   */
  eventLog(tenantSegment: string, threadSegment: string): string {
    return join(this.eventsDirectory(tenantSegment), `${threadSegment}.log`);
  }

  /**
   * Where compaction-pending markers live.
   *
   * @returns An absolute path.
   */
  pendingRoot(): string {
    return join(this.root, 'compaction-pending');
  }

  /**
   * A thread's compaction-pending marker.
   *
   * @param tenantSegment - The encoded tenant id ({@link DataLayout.tenantSegment}).
   * @param threadSegment - The encoded thread id ({@link DataLayout.threadSegment}).
   * @returns An absolute path.
   */
  pendingMarker(tenantSegment: string, threadSegment: string): string {
    return join(this.pendingRoot(), tenantSegment, `${threadSegment}.json`);
  }

  /**
   * A thread's plan versions.
   *
   * @param tenantSegment - The encoded tenant id ({@link DataLayout.tenantSegment}).
   * @param threadSegment - The encoded thread id ({@link DataLayout.threadSegment}).
   * @returns An absolute path.
   */
  planDirectory(tenantSegment: string, threadSegment: string): string {
    return join(this.root, 'plans', tenantSegment, threadSegment);
  }

  /**
   * A cached summary.
   *
   * @param tenantSegment - The encoded tenant id ({@link DataLayout.tenantSegment}).
   * @param keyDigest - The SHA-256 of the summary cache key.
   * @returns An absolute path.
   */
  summaryFile(tenantSegment: string, keyDigest: string): string {
    return join(this.root, 'summaries', tenantSegment, `${keyDigest}.json`);
  }

  /**
   * A thread's lifecycle event log.
   *
   * @param tenantSegment - The encoded tenant id ({@link DataLayout.tenantSegment}).
   * @param threadSegment - The encoded thread id ({@link DataLayout.threadSegment}).
   * @returns An absolute path.
   */
  lifecycleLog(tenantSegment: string, threadSegment: string): string {
    return join(this.root, 'lifecycle', tenantSegment, `${threadSegment}.log`);
  }

  /**
   * Artifacts live under their tenant (ADR-0058): a lookup is made in the asking tenant's directory,
   * so another tenant's artifact is as absent as one never stored. Artifact ids are validated
   * `art_<hex>` before they reach here; two hex digits shard the directory.
   *
   * @param tenantSegment - The encoded tenant id ({@link DataLayout.tenantSegment}).
   * @param artifactId - The validated artifact id.
   * @returns An absolute path.
   */
  artifactDirectory(tenantSegment: string, artifactId: string): string {
    return join(this.root, 'artifacts', tenantSegment, artifactId.slice(4, 6));
  }

  /**
   * An artifact's content.
   *
   * @param tenantSegment - The encoded tenant id ({@link DataLayout.tenantSegment}).
   * @param artifactId - The validated artifact id.
   * @returns An absolute path.
   */
  artifactContent(tenantSegment: string, artifactId: string): string {
    return join(this.artifactDirectory(tenantSegment, artifactId), `${artifactId}.content`);
  }

  /**
   * An artifact's metadata.
   *
   * @param tenantSegment - The encoded tenant id ({@link DataLayout.tenantSegment}).
   * @param artifactId - The validated artifact id.
   * @returns An absolute path.
   */
  artifactMetadata(tenantSegment: string, artifactId: string): string {
    return join(this.artifactDirectory(tenantSegment, artifactId), `${artifactId}.json`);
  }

  /**
   * A tenant's artifact audit log.
   *
   * @param tenantSegment - The encoded tenant id ({@link DataLayout.tenantSegment}).
   * @returns An absolute path.
   */
  auditLog(tenantSegment: string): string {
    return join(this.root, 'artifact-audit', `${tenantSegment}.log`);
  }

  /**
   * The `LOCK` lease file naming an exclusive owner.
   *
   * @returns An absolute path.
   */
  lockFile(): string {
    return join(this.root, 'LOCK');
  }

  /**
   * Shared mode: one file per process that has the directory open.
   *
   * @returns An absolute path.
   */
  sharersDirectory(): string {
    return join(this.root, 'SHARERS');
  }

  /**
   * Shared mode: the cross-process lock files (`<name>.lock` directories).
   *
   * @returns An absolute path.
   */
  locksDirectory(): string {
    return join(this.root, 'locks');
  }

  /**
   * The file naming the on-disk format and its version.
   *
   * @returns An absolute path.
   */
  formatFile(): string {
    return join(this.root, 'FORMAT.json');
  }
}
