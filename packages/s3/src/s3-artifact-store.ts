import {
  type ArtifactAuditEvent,
  type ArtifactMetadata,
  type ArtifactMetadataInput,
  type ArtifactReadResult,
  type ArtifactSensitivity,
  type ArtifactStore,
  artifactAccessDecision,
  artifactContentSha256,
  artifactExpiry,
  artifactIdFor,
  artifactMetadataInputSchema,
  type Clock,
  CompactorError,
  DeniedAuditLimiter,
  type DeniedAuditLimits,
  fieldIssuesFrom,
  IntegrityError,
  isArtifactExpired,
  isArtifactId,
  type Logger,
  noopLogger,
  type SecurityContext,
  strengthenArtifact,
  systemClock,
  ValidationError,
} from '@compactor/core';
import { type ArtifactRecord, decodeRecord, encodeRecord } from './artifact-record.js';
import { contentKey, recordKey } from './object-keys.js';
import { OBJECT_METADATA_NAMES, objectMetadata, objectMetadataValue } from './object-metadata.js';
import { type ArtifactAuditLog, S3AuditLog } from './s3-audit-log.js';
import type { ObjectLocation, S3ObjectClient } from './s3-object-client.js';

/** Where and how the S3 artifact store keeps artifacts. */
export interface S3ArtifactStoreOptions {
  client: S3ObjectClient;
  /** The default bucket: content of sensitivities without their own bucket, records and audit. */
  bucket: string;
  /** Optional bucket per sensitivity (e.g. a restricted bucket with its own policies and key). */
  buckets?: Partial<Record<ArtifactSensitivity, string>>;
  /** Key prefix. @defaultValue `'artifacts'` */
  prefix?: string;
  /** SSE-KMS key for every object, unless a sensitivity or the artifact itself names another. */
  encryptionKeyId?: string;
  /** SSE-KMS key per sensitivity (wins over `encryptionKeyId` for that sensitivity's content). */
  encryptionKeyIds?: Partial<Record<ArtifactSensitivity, string>>;
  /** Where reads and refusals are recorded. @defaultValue an {@link S3AuditLog} in the default bucket */
  auditLog?: ArtifactAuditLog;
  /** Bounds on recorded refusals per tenant and window (ADR-0058). @defaultValue 100 per minute */
  deniedAuditLimits?: Partial<DeniedAuditLimits>;
  /** @defaultValue `systemClock` */
  clock?: Clock;
  /** @defaultValue `noopLogger` */
  logger?: Logger;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** How often a put re-reads after losing a conditional write of the record. */
const MAX_PUT_ATTEMPTS = 5;

/**
 * The ArtifactStore on S3, after temporal's S3 store: content-addressed content objects per
 * tenant carrying their metadata as `x-amz-meta-*`, the SHA-256 checked again on every read, SSE-KMS
 * when a key is configured, optionally a bucket per sensitivity; plus a small metadata record per
 * artifact id (see ArtifactRecord) and an audit log. S3 does not expire objects by metadata: expiry
 * is enforced on read here, and a bucket lifecycle rule deletes the bytes (see README).
 */
export class S3ArtifactStore implements ArtifactStore {
  private readonly client: S3ObjectClient;
  private readonly prefix: string;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly auditLog: ArtifactAuditLog;
  private readonly deniedAudit: DeniedAuditLimiter;

  /** @param options - Client, buckets, prefix, keys, audit log, clock and logger. */
  constructor(private readonly options: S3ArtifactStoreOptions) {
    this.deniedAudit = new DeniedAuditLimiter(options.deniedAuditLimits);
    this.client = options.client;
    this.prefix = options.prefix ?? 'artifacts';
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger ?? noopLogger;
    this.auditLog =
      options.auditLog ??
      new S3AuditLog({
        client: options.client,
        bucket: options.bucket,
        prefix: this.prefix,
        ...(options.encryptionKeyId === undefined ? {} : { kmsKeyId: options.encryptionKeyId }),
      });
  }

  async put(content: string, input: ArtifactMetadataInput): Promise<ArtifactMetadata> {
    if (typeof content !== 'string') {
      throw new ValidationError('artifact content must be a string', [
        { path: 'content', message: 'expected a string' },
      ]);
    }
    const parsed = artifactMetadataInputSchema.safeParse(input);
    if (!parsed.success) {
      throw new ValidationError('invalid artifact metadata', fieldIssuesFrom(parsed.error.issues));
    }
    for (const field of ['tenantId', 'threadId'] as const) {
      // Lone surrogates cannot be percent-encoded into a key or header, and would hash like U+FFFD.
      if (LONE_SURROGATE.test(parsed.data[field])) {
        throw new ValidationError('invalid artifact metadata', [
          { path: field, message: 'not well-formed Unicode' },
        ]);
      }
    }
    const body = new TextEncoder().encode(content);
    const sha256 = artifactContentSha256(body);
    const artifactId = artifactIdFor(parsed.data.tenantId, sha256);
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.putOnce(artifactId, body, sha256, parsed.data);
      } catch (error) {
        // Another put of the same artifact wrote the record between our read and our write.
        if (!CompactorError.hasCode(error, 'concurrency') || attempt >= MAX_PUT_ATTEMPTS) throw error;
      }
    }
  }

  private async putOnce(
    artifactId: string,
    body: Uint8Array,
    sha256: string,
    input: ArtifactMetadataInput,
  ): Promise<ArtifactMetadata> {
    const now = this.clock.now();
    const existing = await this.readRecord(input.tenantId, artifactId);
    const requestedExpiry = artifactExpiry(now, input.ttlSeconds);
    if (existing !== null && !isArtifactExpired(existing.record.metadata.expiresAt, now)) {
      const current = existing.record.metadata;
      const strengthened = strengthenArtifact(current, input.sensitivity, requestedExpiry);
      if (strengthened === current) return current;
      return this.write(strengthened, body, { etag: existing.etag, content: existing.record.content });
    }
    const createdAt = now.toISOString();
    const expiresAt = requestedExpiry;
    const metadata: ArtifactMetadata = {
      artifactId,
      threadId: input.threadId,
      tenantId: input.tenantId,
      sensitivity: input.sensitivity,
      ...(input.ttlSeconds === undefined ? {} : { ttlSeconds: input.ttlSeconds }),
      ...(input.encryptionKeyId === undefined ? {} : { encryptionKeyId: input.encryptionKeyId }),
      ...(input.contentType === undefined ? {} : { contentType: input.contentType }),
      ...(input.labels === undefined ? {} : { labels: { ...input.labels } }),
      sha256,
      sizeBytes: body.byteLength,
      createdAt,
      expiresAt,
    };
    // An expired record is replaced (a fresh artifact); a missing one is created only if still missing.
    return this.write(
      metadata,
      body,
      existing === null ? undefined : { etag: existing.etag, content: existing.record.content },
    );
  }

  /** Content first, then the record (the commit point), then the old content if it moved bucket. */
  private async write(
    metadata: ArtifactMetadata,
    body: Uint8Array,
    previous: { etag: string | undefined; content: ObjectLocation } | undefined,
  ): Promise<ArtifactMetadata> {
    const content = this.contentLocation(metadata);
    const kmsKeyId = this.kmsKeyFor(metadata);
    const tags = expiryTags(metadata.expiresAt, this.clock.now());
    await this.client.putObject({
      ...content,
      body,
      contentType: metadata.contentType ?? 'text/plain; charset=utf-8',
      metadata: objectMetadata(metadata, kmsKeyId),
      ...(kmsKeyId === undefined ? {} : { kmsKeyId }),
      ...(tags === undefined ? {} : { tags }),
    });
    const record: ArtifactRecord = { formatVersion: 1, metadata, content };
    await this.client.putObject({
      bucket: this.options.bucket,
      key: recordKey(this.prefix, metadata.tenantId, metadata.artifactId),
      body: encodeRecord(record),
      contentType: 'application/json',
      ...(this.options.encryptionKeyId === undefined ? {} : { kmsKeyId: this.options.encryptionKeyId }),
      ...(tags === undefined ? {} : { tags }),
      ...(previous === undefined
        ? { ifNoneMatch: '*' as const }
        : previous.etag === undefined
          ? {}
          : { ifMatch: previous.etag }),
    });
    if (previous !== undefined && !sameLocation(previous.content, content)) {
      // The artifact moved to a stricter sensitivity's bucket: the less protected copy goes.
      await this.client.deleteObject(previous.content).catch((error: unknown) => {
        this.logger.warn({ err: error, ...previous.content }, 'could not delete the previous artifact copy');
      });
    }
    return metadata;
  }

  async getMetadata(artifactId: string, context: SecurityContext): Promise<ArtifactMetadata | null> {
    const record = await this.liveRecord(context.tenantId, artifactId);
    if (record === null || record.metadata.tenantId !== context.tenantId) return null;
    return record.metadata;
  }

  async retrieve(artifactId: string, context: SecurityContext): Promise<ArtifactReadResult> {
    const record = await this.liveRecord(context.tenantId, artifactId);
    if (record === null) return { status: 'not_found' };
    const { metadata } = record;
    const decision = artifactAccessDecision(metadata, context);
    if (!decision.allowed) {
      // Within the denied-read limits, so refusals cannot grow the log without bound.
      const verdict = this.deniedAudit.verdict(
        {
          tenantId: metadata.tenantId,
          artifactId,
          requesterId: context.requesterId,
          reason: decision.reason,
        },
        this.clock.now(),
      );
      if (verdict.kind !== 'skip') {
        await this.audit(
          metadata,
          context,
          'denied',
          verdict.kind === 'record' ? decision.reason : verdict.reason,
        );
      }
      return { status: 'denied', reason: decision.reason };
    }
    const object = await this.client.getObject(record.content);
    // The record outlived its bytes: a lifecycle rule deleted them after expiry.
    if (object === null) return { status: 'not_found' };
    const actual = artifactContentSha256(object.body);
    const declared = objectMetadataValue(object.metadata, OBJECT_METADATA_NAMES.sha256);
    if (actual !== metadata.sha256 || (declared !== undefined && declared !== metadata.sha256)) {
      throw new IntegrityError(`artifact ${artifactId} does not match its SHA-256`, {
        artifactId,
        expected: metadata.sha256,
        actual,
        bucket: record.content.bucket,
        key: record.content.key,
      });
    }
    await this.audit(metadata, context, 'read');
    return { status: 'ok', content: new TextDecoder().decode(object.body), metadata };
  }

  listAudit(tenantId: string, artifactId?: string): Promise<ArtifactAuditEvent[]> {
    return this.auditLog.list(tenantId, artifactId);
  }

  /**
   * Where a tenant's artifact content lives (for operators and tests).
   *
   * @param tenantId - The asking tenant.
   * @param artifactId - The artifact id.
   * @returns The content object's location, or null when unknown.
   */
  async locate(tenantId: string, artifactId: string): Promise<ObjectLocation | null> {
    if (!isArtifactId(artifactId)) return null;
    return (await this.readRecord(tenantId, artifactId))?.record.content ?? null;
  }

  private async liveRecord(tenantId: string, artifactId: string): Promise<ArtifactRecord | null> {
    // Malformed ids never reach S3: no key can be built from untrusted text.
    if (!isArtifactId(artifactId) || LONE_SURROGATE.test(tenantId)) return null;
    const found = await this.readRecord(tenantId, artifactId);
    if (found === null || isArtifactExpired(found.record.metadata.expiresAt, this.clock.now())) return null;
    return found.record;
  }

  private async readRecord(
    tenantId: string,
    artifactId: string,
  ): Promise<{ record: ArtifactRecord; etag: string | undefined } | null> {
    const object = await this.client.getObject({
      bucket: this.options.bucket,
      key: recordKey(this.prefix, tenantId, artifactId),
    });
    if (object === null) return null;
    const record = decodeRecord(object.body);
    if (
      record === null ||
      record.metadata.artifactId !== artifactId ||
      record.metadata.tenantId !== tenantId
    ) {
      throw new IntegrityError(`the metadata record of artifact ${artifactId} is unreadable`, { artifactId });
    }
    return { record, etag: object.etag };
  }

  private async audit(
    metadata: ArtifactMetadata,
    context: SecurityContext,
    action: ArtifactAuditEvent['action'],
    reason?: string,
  ): Promise<void> {
    // Recorded in the artifact owner's log, whoever asked: the owner must see another tenant's attempt.
    await this.auditLog.record({
      at: this.clock.now().toISOString(),
      artifactId: metadata.artifactId,
      tenantId: metadata.tenantId,
      requesterId: context.requesterId,
      action,
      ...(reason === undefined ? {} : { reason }),
    });
  }

  private contentLocation(metadata: ArtifactMetadata): ObjectLocation {
    return {
      bucket: this.options.buckets?.[metadata.sensitivity] ?? this.options.bucket,
      key: contentKey(this.prefix, metadata.tenantId, metadata.sha256),
    };
  }

  /** The artifact's own key id, else its sensitivity's, else the store's; none = no SSE-KMS header. */
  private kmsKeyFor(metadata: ArtifactMetadata): string | undefined {
    return (
      metadata.encryptionKeyId ??
      this.options.encryptionKeyIds?.[metadata.sensitivity] ??
      this.options.encryptionKeyId
    );
  }
}

/** The tag a bucket lifecycle rule filters on to delete expired bytes: whole days from now, rounded up. */
export const TTL_DAYS_TAG = 'compactor-ttl-days';

function expiryTags(expiresAt: string | undefined, now: Date): Record<string, string> | undefined {
  if (expiresAt === undefined) return undefined;
  const days = Math.max(1, Math.ceil((Date.parse(expiresAt) - now.getTime()) / 86_400_000));
  return { [TTL_DAYS_TAG]: String(days) };
}

function sameLocation(a: ObjectLocation, b: ObjectLocation): boolean {
  return a.bucket === b.bucket && a.key === b.key;
}
