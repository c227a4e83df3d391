import { createHash } from 'node:crypto';
import {
  type ArtifactAuditEvent,
  type ArtifactMetadata,
  type ArtifactMetadataInput,
  type ArtifactReadResult,
  type ArtifactStore,
  artifactAccessDecision,
  type SecurityContext,
} from '@compactor/core';

/**
 * An in-memory ArtifactStore for unit tests, applying core's access rule like every real store.
 * `put` takes an explicit id so fixtures can use readable ids; reads are recorded.
 */
export class MemoryArtifactStore implements ArtifactStore {
  readonly #artifacts = new Map<string, { content: string; metadata: ArtifactMetadata }>();
  readonly #audit: ArtifactAuditEvent[] = [];
  readonly reads: string[] = [];

  add(artifactId: string, content: string, metadata: ArtifactMetadataInput): ArtifactMetadata {
    const full: ArtifactMetadata = {
      ...metadata,
      artifactId,
      sha256: createHash('sha256').update(content).digest('hex'),
      sizeBytes: Buffer.byteLength(content),
      createdAt: '2025-01-01T00:00:00.000Z',
      expiresAt: undefined,
    };
    this.#artifacts.set(artifactId, { content, metadata: full });
    return full;
  }

  async put(content: string, metadata: ArtifactMetadataInput): Promise<ArtifactMetadata> {
    return this.add(`art_${createHash('sha256').update(content).digest('hex')}`, content, metadata);
  }

  async getMetadata(artifactId: string, context: SecurityContext): Promise<ArtifactMetadata | null> {
    const artifact = this.#artifacts.get(artifactId);
    if (!artifact || artifact.metadata.tenantId !== context.tenantId) return null;
    return artifact.metadata;
  }

  async retrieve(artifactId: string, context: SecurityContext): Promise<ArtifactReadResult> {
    this.reads.push(artifactId);
    const artifact = this.#artifacts.get(artifactId);
    if (!artifact) return { status: 'not_found' };
    const decision = artifactAccessDecision(artifact.metadata, context);
    const at = '2025-01-01T00:00:00.000Z';
    if (!decision.allowed) {
      this.#audit.push({
        at,
        artifactId,
        tenantId: context.tenantId,
        requesterId: context.requesterId,
        action: 'denied',
        reason: decision.reason,
      });
      return { status: 'denied', reason: decision.reason };
    }
    this.#audit.push({
      at,
      artifactId,
      tenantId: context.tenantId,
      requesterId: context.requesterId,
      action: 'read',
    });
    return { status: 'ok', content: artifact.content, metadata: artifact.metadata };
  }

  async listAudit(tenantId: string, artifactId?: string): Promise<ArtifactAuditEvent[]> {
    return this.#audit.filter(
      (event) => event.tenantId === tenantId && (artifactId === undefined || event.artifactId === artifactId),
    );
  }
}
