import { z } from 'zod';
import { type ArtifactSensitivity, artifactSensitivitySchema } from '../plan/records.js';

export const ARTIFACT_PERMISSION_CONFIDENTIAL = 'artifacts:read:confidential';
export const ARTIFACT_PERMISSION_RESTRICTED = 'artifacts:read:restricted';

/**
 * Artifact ids are `art_` followed by 64 lowercase hex digits:
 * `art_` + hex SHA-256 of (`tenantId` + U+0000 + hex SHA-256 of the UTF-8 content).
 * The id is content-addressed but scoped per tenant, so two tenants storing the same bytes get
 * different ids and never share access; any adapter derives the same id for the same input.
 */
export const ARTIFACT_ID_PATTERN = /^art_[0-9a-f]{64}$/;

/** What `put` accepts; adapters reject anything else with a ValidationError. */
export const artifactMetadataInputSchema = z.object({
  threadId: z.string().min(1),
  tenantId: z.string().min(1),
  sensitivity: artifactSensitivitySchema,
  ttlSeconds: z.number().positive().optional(),
  encryptionKeyId: z.string().min(1).optional(),
  contentType: z.string().min(1).optional(),
  labels: z.record(z.string(), z.string()).optional(),
});

/** What a caller says about content it stores. */
export interface ArtifactMetadataInput {
  threadId: string;
  tenantId: string;
  sensitivity: ArtifactSensitivity;
  /**
   * Seconds until the artifact expires.
   * @defaultValue none: kept until deleted
   */
  ttlSeconds?: number;
  encryptionKeyId?: string;
  contentType?: string;
  /** Free-form labels (tool name, tool call id, ...). */
  labels?: Record<string, string>;
}

/** A stored artifact's metadata: the input plus id, hash, size and times. */
export interface ArtifactMetadata extends ArtifactMetadataInput {
  artifactId: string;
  /** Hex SHA-256 of the content, checked again on every read. */
  sha256: string;
  sizeBytes: number;
  createdAt: string;
  expiresAt: string | undefined;
}

/** Who is asking: requester, tenant and permissions. */
export interface SecurityContext {
  requesterId: string;
  tenantId: string;
  permissions: ReadonlySet<string> | readonly string[];
}

/** A read's answer: the content, a refusal with its reason, or nothing found. */
export type ArtifactReadResult =
  | { status: 'ok'; content: string; metadata: ArtifactMetadata }
  | { status: 'denied'; reason: string }
  | { status: 'not_found' };

/** One entry of a tenant's artifact audit log. */
export interface ArtifactAuditEvent {
  at: string;
  artifactId: string;
  tenantId: string;
  requesterId: string;
  action: 'read' | 'denied';
  reason?: string;
}

/**
 * Externalized content, content-addressed and access-controlled (the shared rules are in
 * `artifact-rules.ts` beside this port). Lookups are scoped to the asking tenant (ADR-0058): another
 * tenant's id reads exactly as an id nobody stored (`not_found`, nothing audited anywhere), so a
 * tenant cannot learn whether another holds some content. A read of a confidential/restricted
 * artifact without the permission returns nothing and is recorded as a `denied` audit event,
 * within the denied-read limits (`DeniedAuditLimiter`). Expired artifacts read as not found.
 *
 * - `put` of content a tenant already stores (same id) is idempotent: the id, `createdAt` and
 *   the first put's thread, labels and key are kept, but the sensitivity is raised to the
 *   stricter of the two (never lowered) and the expiry moved to the later of the two (no TTL
 *   = never). A put of an expired artifact stores it afresh.
 * - `retrieve` recomputes the SHA-256 of the stored bytes and throws IntegrityError when it
 *   differs from the metadata's. Every successful read (`read`) is appended to the tenant's
 *   audit log; a refusal (`denied`) too, once per artifact, requester and reason per window and at
 *   most `maxRecordsPerWindow` per tenant and window (the last saying the limit was reached).
 *   `listAudit` returns that log in append order. Unknown, malformed, expired or other tenants'
 *   ids read as `not_found` and are not audited.
 * - `getMetadata` returns null for another tenant's artifact, an unknown or an expired one; it
 *   does not check sensitivity permissions (callers use it to gate auto-rehydration).
 */
export interface ArtifactStore {
  /**
   * Store content (idempotent per tenant and content, as above).
   *
   * @param content - The content.
   * @param metadata - Owner, sensitivity, expiry and labels.
   * @returns The stored metadata, with the artifact id.
   * @throws ValidationError for metadata that fails `artifactMetadataInputSchema`.
   */
  put(content: string, metadata: ArtifactMetadataInput): Promise<ArtifactMetadata>;
  /**
   * An artifact's metadata, without a permission check.
   *
   * @param artifactId - The id.
   * @param context - Who asks (its tenant scopes the lookup).
   * @returns The metadata, or null when unknown, expired or another tenant's.
   */
  getMetadata(artifactId: string, context: SecurityContext): Promise<ArtifactMetadata | null>;
  /**
   * An artifact's content, if the caller may read it; every read and refusal is audited as above.
   *
   * @param artifactId - The id.
   * @param context - Who asks.
   * @returns The content, a refusal, or not found.
   * @throws IntegrityError when the stored bytes no longer match their hash.
   */
  retrieve(artifactId: string, context: SecurityContext): Promise<ArtifactReadResult>;
  /**
   * A tenant's audit log, in append order.
   *
   * @param tenantId - The tenant.
   * @param artifactId - Only this artifact's entries.
   * @returns The entries.
   */
  listAudit(tenantId: string, artifactId?: string): Promise<ArtifactAuditEvent[]>;
}

/**
 * The permission rule every artifact store applies: same tenant, and the permission that
 * confidential or restricted content needs.
 *
 * @param metadata - The artifact's tenant and sensitivity.
 * @param context - Who is asking.
 * @returns Allowed, or refused with the reason.
 */
export function artifactAccessDecision(
  metadata: Pick<ArtifactMetadata, 'tenantId' | 'sensitivity'>,
  context: SecurityContext,
): { allowed: true } | { allowed: false; reason: string } {
  if (metadata.tenantId !== context.tenantId) return { allowed: false, reason: 'tenant mismatch' };
  const permissions = new Set(context.permissions);
  if (metadata.sensitivity === 'confidential' && !permissions.has(ARTIFACT_PERMISSION_CONFIDENTIAL)) {
    return { allowed: false, reason: `missing permission ${ARTIFACT_PERMISSION_CONFIDENTIAL}` };
  }
  if (metadata.sensitivity === 'restricted' && !permissions.has(ARTIFACT_PERMISSION_RESTRICTED)) {
    return { allowed: false, reason: `missing permission ${ARTIFACT_PERMISSION_RESTRICTED}` };
  }
  return { allowed: true };
}
