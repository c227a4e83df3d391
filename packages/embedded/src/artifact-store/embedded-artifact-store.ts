import { readFile } from 'node:fs/promises';
import {
  ARTIFACT_ID_PATTERN,
  type ArtifactAuditEvent,
  type ArtifactMetadata,
  type ArtifactMetadataInput,
  type ArtifactReadResult,
  type ArtifactStore,
  artifactAccessDecision,
  artifactMetadataInputSchema,
  type Clock,
  IntegrityError,
  type Logger,
  type SecurityContext,
  ValidationError,
} from '@compactor/core';
import type { StoreLocks } from '../concurrency/store-locks.js';
import { isMissingFileError, readFileIfPresent, writeFileAtomically } from '../files/durable-files.js';
import { OpenLogs } from '../memory/open-logs.js';
import type { DataLayout } from '../paths/data-layout.js';
import { createStoreContext } from '../store-context.js';
import { type EmbeddedStoreOptions, storeClosedError } from '../store-options.js';
import { parseOrThrow } from '../validation.js';
import { artifactIdFor, sha256Hex } from './artifact-id.js';
import { laterExpiry, stricterSensitivity } from './sensitivity.js';

/**
 * Artifacts in a local directory: the content in `<id>.content` and its metadata in `<id>.json`
 * beside it, both written atomically (content first, so metadata never points at nothing). Reads
 * recompute the SHA-256; every read and refusal goes to the owner tenant's audit log (fsynced
 * before the content is handed out). Shared mode: puts and audit appends take cross-process locks.
 */
export class EmbeddedArtifactStore implements ArtifactStore {
  private readonly layout: DataLayout;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly locks: StoreLocks;
  private readonly shared: boolean;
  private readonly auditLogs: OpenLogs;
  private closed = false;

  constructor(options: EmbeddedStoreOptions = {}) {
    const context = createStoreContext(options);
    this.layout = context.layout;
    this.clock = context.clock;
    this.logger = context.logger;
    this.shared = context.shared;
    this.locks = context.locks;
    this.auditLogs = new OpenLogs({
      maxBytes: context.cacheBytes,
      logger: context.logger,
      shared: context.shared,
    });
  }

  async put(content: string, metadataInput: ArtifactMetadataInput): Promise<ArtifactMetadata> {
    this.ensureOpen();
    if (typeof content !== 'string') {
      throw new ValidationError('artifact content must be a string', [
        { path: 'content', message: 'invalid' },
      ]);
    }
    const input = parseOrThrow(artifactMetadataInputSchema, metadataInput, 'artifact metadata');
    const sha256 = sha256Hex(content);
    const artifactId = artifactIdFor(input.tenantId, sha256);
    return this.locks.run(`artifacts/${artifactId}`, async () => {
      const now = this.clock.now();
      const requestedExpiry =
        input.ttlSeconds === undefined
          ? undefined
          : new Date(now.getTime() + input.ttlSeconds * 1000).toISOString();
      const existing = await this.readMetadata(artifactId);
      if (existing && !isExpired(existing, now)) {
        const merged = strengthen(existing, input.sensitivity, requestedExpiry);
        if (merged !== existing) await this.writeMetadata(merged);
        return merged;
      }
      await writeFileAtomically(this.layout.artifactContent(artifactId), content);
      const metadata: ArtifactMetadata = {
        ...input,
        artifactId,
        sha256,
        sizeBytes: Buffer.byteLength(content, 'utf8'),
        createdAt: now.toISOString(),
        expiresAt: requestedExpiry,
      };
      await this.writeMetadata(metadata);
      return metadata;
    });
  }

  async getMetadata(artifactId: string, context: SecurityContext): Promise<ArtifactMetadata | null> {
    this.ensureOpen();
    const metadata = await this.liveMetadata(artifactId);
    return metadata && metadata.tenantId === context.tenantId ? metadata : null;
  }

  async retrieve(artifactId: string, context: SecurityContext): Promise<ArtifactReadResult> {
    this.ensureOpen();
    const metadata = await this.liveMetadata(artifactId);
    if (!metadata) return { status: 'not_found' };
    const decision = artifactAccessDecision(metadata, context);
    if (!decision.allowed) {
      await this.audit(metadata, context, 'denied', decision.reason);
      return { status: 'denied', reason: decision.reason };
    }
    const path = this.layout.artifactContent(artifactId);
    let bytes: Buffer;
    try {
      bytes = await readFile(path);
    } catch (error) {
      if (isMissingFileError(error))
        throw new IntegrityError(`artifact ${artifactId} has metadata but no content`);
      throw error;
    }
    const actual = sha256Hex(bytes);
    if (actual !== metadata.sha256) {
      this.logger.error(
        { artifactId, expected: metadata.sha256, actual },
        'artifact content does not match its SHA-256',
      );
      throw new IntegrityError(`artifact ${artifactId} does not match its SHA-256`, {
        artifactId,
        expected: metadata.sha256,
        actual,
      });
    }
    await this.audit(metadata, context, 'read');
    return { status: 'ok', content: bytes.toString('utf8'), metadata };
  }

  async listAudit(tenantId: string, artifactId?: string): Promise<ArtifactAuditEvent[]> {
    this.ensureOpen();
    const path = this.layout.auditLog(this.layout.tenantSegment(tenantId));
    const events = (await this.auditLogs.use(path, (log) => log.readAll())) as ArtifactAuditEvent[];
    return events.filter(
      (event) => event.tenantId === tenantId && (artifactId === undefined || event.artifactId === artifactId),
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.locks.drain();
  }

  private ensureOpen(): void {
    if (this.closed) throw storeClosedError('the embedded artifact store');
  }

  /** Metadata of an artifact that exists and has not expired; malformed ids never touch the disk. */
  private async liveMetadata(artifactId: string): Promise<ArtifactMetadata | null> {
    if (typeof artifactId !== 'string' || !ARTIFACT_ID_PATTERN.test(artifactId)) return null;
    const metadata = await this.readMetadata(artifactId);
    return metadata && !isExpired(metadata, this.clock.now()) ? metadata : null;
  }

  private async readMetadata(artifactId: string): Promise<ArtifactMetadata | null> {
    const path = this.layout.artifactMetadata(artifactId);
    const bytes = await readFileIfPresent(path);
    if (bytes === null) return null;
    try {
      return JSON.parse(bytes.toString('utf8')) as ArtifactMetadata;
    } catch (error) {
      throw new IntegrityError(`artifact metadata ${path} is not valid JSON`, { cause: String(error) });
    }
  }

  private async writeMetadata(metadata: ArtifactMetadata): Promise<void> {
    await writeFileAtomically(this.layout.artifactMetadata(metadata.artifactId), JSON.stringify(metadata));
  }

  private async audit(
    metadata: ArtifactMetadata,
    context: SecurityContext,
    action: ArtifactAuditEvent['action'],
    reason?: string,
  ): Promise<void> {
    const event: ArtifactAuditEvent = {
      at: this.clock.now().toISOString(),
      artifactId: metadata.artifactId,
      tenantId: metadata.tenantId,
      requesterId: String(context.requesterId),
      action,
      ...(reason === undefined ? {} : { reason }),
    };
    const tenantSegment = this.layout.tenantSegment(metadata.tenantId);
    await this.locks.run(`audit/${tenantSegment}`, () =>
      this.auditLogs.use(this.layout.auditLog(tenantSegment), async (log) => {
        if (this.shared) await log.catchUp(true);
        await log.append([event]);
      }),
    );
  }
}

function isExpired(metadata: ArtifactMetadata, now: Date): boolean {
  return metadata.expiresAt !== undefined && now.getTime() >= Date.parse(metadata.expiresAt);
}

/** A second put never weakens an artifact: stricter sensitivity, later expiry. Same object when unchanged. */
function strengthen(
  existing: ArtifactMetadata,
  sensitivity: ArtifactMetadata['sensitivity'],
  expiresAt: string | undefined,
): ArtifactMetadata {
  const stricter = stricterSensitivity(existing.sensitivity, sensitivity);
  const later = laterExpiry(existing.expiresAt, expiresAt);
  if (stricter === existing.sensitivity && later === existing.expiresAt) return existing;
  const { ttlSeconds: _ttlSeconds, ...rest } = existing;
  const ttlSeconds =
    later === undefined ? undefined : (Date.parse(later) - Date.parse(existing.createdAt)) / 1000;
  return {
    ...rest,
    sensitivity: stricter,
    expiresAt: later,
    ...(ttlSeconds === undefined ? {} : { ttlSeconds }),
  };
}
