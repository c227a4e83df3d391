import { readFile } from 'node:fs/promises';
import {
  type ArtifactAuditEvent,
  type ArtifactMetadata,
  type ArtifactMetadataInput,
  type ArtifactReadResult,
  type ArtifactStore,
  artifactAccessDecision,
  artifactExpiry,
  artifactIdFor,
  artifactMetadataInputSchema,
  type Clock,
  DeniedAuditLimiter,
  type DeniedAuditLimits,
  IntegrityError,
  isArtifactExpired,
  isArtifactId,
  type Logger,
  type SecurityContext,
  strengthenArtifact,
  ValidationError,
} from '@compactor/core';
import type { StoreLocks } from '../concurrency/store-locks.js';
import { isMissingFileError, readFileIfPresent, writeFileAtomically } from '../files/durable-files.js';
import { OpenLogs } from '../memory/open-logs.js';
import type { DataLayout } from '../paths/data-layout.js';
import { createStoreContext } from '../store-context.js';
import { type EmbeddedStoreOptions, storeClosedError } from '../store-options.js';
import { parseOrThrow } from '../validation.js';
import { contentSha256 } from './content-sha256.js';
import { KnownArtifacts } from './known-artifacts.js';

/**
 * Artifacts in a local directory, under their tenant: the content in `<id>.content` and its
 * metadata in `<id>.json` beside it, both written atomically (content first, so metadata never
 * points at nothing). Lookups use the asking tenant's directory, so another tenant's artifact
 * reads exactly as an absent one. Reads recompute the SHA-256; every read goes to the tenant's
 * audit log (fsynced before the content is handed out), and refusals too, within the denied-read
 * limits. Shared mode: puts and audit appends take cross-process locks. Exclusive mode: a put of
 * content this store already put, asking for nothing stronger, is answered from memory (ADR-0345).
 */
export class EmbeddedArtifactStore implements ArtifactStore {
  private readonly layout: DataLayout;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly locks: StoreLocks;
  private readonly shared: boolean;
  private readonly auditLogs: OpenLogs;
  private readonly deniedAudit: DeniedAuditLimiter;
  /** Exclusive mode only: in shared mode another process may strengthen an artifact behind our back. */
  private readonly known: KnownArtifacts | undefined;
  private closed = false;

  /**
   * Open the artifact store over the configured data directory (no files are touched until first use).
   *
   * @param options - Store options, and how many denied reads the audit log records per tenant.
   * @throws ValidationError when `sharing` is not a known mode.
   */
  constructor(options: EmbeddedStoreOptions & { deniedAuditLimits?: Partial<DeniedAuditLimits> } = {}) {
    const context = createStoreContext(options);
    this.deniedAudit = new DeniedAuditLimiter(options.deniedAuditLimits);
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
    // A quarter of the store's memory budget: about 6,000 artifacts (1.4 KB each, estimated) at the default 32 MiB.
    this.known = context.shared ? undefined : new KnownArtifacts(context.cacheBytes / 4);
  }

  async put(content: string, metadataInput: ArtifactMetadataInput): Promise<ArtifactMetadata> {
    this.ensureOpen();
    if (typeof content !== 'string') {
      throw new ValidationError('artifact content must be a string', [
        { path: 'content', message: 'invalid' },
      ]);
    }
    const input = parseOrThrow(artifactMetadataInputSchema, metadataInput, 'artifact metadata');
    const sha256 = contentSha256(content);
    const artifactId = artifactIdFor(input.tenantId, sha256, contentSha256);
    const tenantSegment = this.layout.tenantSegment(input.tenantId);
    const remembered = this.known?.get(artifactId);
    if (remembered) {
      const now = this.clock.now();
      // What the slow path would find on disk, and leave as it is: no lock, no read, no write.
      if (
        !isArtifactExpired(remembered.expiresAt, now) &&
        strengthenArtifact(remembered, input.sensitivity, artifactExpiry(now, input.ttlSeconds)) ===
          remembered
      )
        return KnownArtifacts.copyOf(remembered);
    }
    return this.locks.run(`artifacts/${artifactId}`, async () => {
      const now = this.clock.now();
      const requestedExpiry = artifactExpiry(now, input.ttlSeconds);
      const existing = await this.readMetadata(tenantSegment, artifactId);
      if (existing && !isArtifactExpired(existing.expiresAt, now)) {
        const merged = strengthenArtifact(existing, input.sensitivity, requestedExpiry);
        if (merged !== existing) await this.writeMetadata(merged);
        this.known?.remember(merged);
        return merged;
      }
      await writeFileAtomically(this.layout.artifactContent(tenantSegment, artifactId), content);
      const metadata: ArtifactMetadata = {
        ...input,
        artifactId,
        sha256,
        sizeBytes: Buffer.byteLength(content, 'utf8'),
        createdAt: now.toISOString(),
        expiresAt: requestedExpiry,
      };
      await this.writeMetadata(metadata);
      this.known?.remember(metadata);
      return metadata;
    });
  }

  async getMetadata(artifactId: string, context: SecurityContext): Promise<ArtifactMetadata | null> {
    this.ensureOpen();
    const metadata = await this.liveMetadata(context.tenantId, artifactId);
    return metadata && metadata.tenantId === context.tenantId ? metadata : null;
  }

  async retrieve(artifactId: string, context: SecurityContext): Promise<ArtifactReadResult> {
    this.ensureOpen();
    const metadata = await this.liveMetadata(context.tenantId, artifactId);
    if (!metadata) return { status: 'not_found' };
    const decision = artifactAccessDecision(metadata, context);
    if (!decision.allowed) {
      await this.auditDenied(metadata, context, decision.reason);
      return { status: 'denied', reason: decision.reason };
    }
    const path = this.layout.artifactContent(this.layout.tenantSegment(metadata.tenantId), artifactId);
    let bytes: Buffer;
    try {
      bytes = await readFile(path);
    } catch (error) {
      if (isMissingFileError(error))
        throw new IntegrityError(`artifact ${artifactId} has metadata but no content`);
      throw error;
    }
    const actual = contentSha256(bytes);
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

  /** Wait for puts and audit appends in flight, then refuse new calls. */
  async close(): Promise<void> {
    this.closed = true;
    await this.locks.drain();
  }

  private ensureOpen(): void {
    if (this.closed) throw storeClosedError('the embedded artifact store');
  }

  /**
   * Metadata of the tenant's artifact that exists and has not expired; malformed ids never touch
   * the disk, and neither does a tenant id no directory could hold.
   */
  private async liveMetadata(tenantId: string, artifactId: string): Promise<ArtifactMetadata | null> {
    if (!isArtifactId(artifactId)) return null;
    let tenantSegment: string;
    try {
      tenantSegment = this.layout.tenantSegment(tenantId);
    } catch {
      return null;
    }
    const metadata = await this.readMetadata(tenantSegment, artifactId);
    return metadata && !isArtifactExpired(metadata.expiresAt, this.clock.now()) ? metadata : null;
  }

  private async readMetadata(tenantSegment: string, artifactId: string): Promise<ArtifactMetadata | null> {
    const path = this.layout.artifactMetadata(tenantSegment, artifactId);
    const bytes = await readFileIfPresent(path);
    if (bytes === null) return null;
    try {
      return JSON.parse(bytes.toString('utf8')) as ArtifactMetadata;
    } catch (error) {
      throw new IntegrityError(`artifact metadata ${path} is not valid JSON`, { cause: String(error) });
    }
  }

  private async writeMetadata(metadata: ArtifactMetadata): Promise<void> {
    await writeFileAtomically(
      this.layout.artifactMetadata(this.layout.tenantSegment(metadata.tenantId), metadata.artifactId),
      JSON.stringify(metadata),
    );
  }

  /** A refusal is recorded within the denied-read limits (ADR-0058), so refusals cannot grow the log without bound. */
  private async auditDenied(
    metadata: ArtifactMetadata,
    context: SecurityContext,
    reason: string,
  ): Promise<void> {
    const verdict = this.deniedAudit.verdict(
      {
        tenantId: metadata.tenantId,
        artifactId: metadata.artifactId,
        requesterId: String(context.requesterId),
        reason,
      },
      this.clock.now(),
    );
    if (verdict.kind === 'skip') return;
    await this.audit(metadata, context, 'denied', verdict.kind === 'record' ? reason : verdict.reason);
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
