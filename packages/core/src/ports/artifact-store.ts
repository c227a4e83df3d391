import type { ArtifactSensitivity } from '../plan/records.js';

export const ARTIFACT_PERMISSION_CONFIDENTIAL = 'artifacts:read:confidential';
export const ARTIFACT_PERMISSION_RESTRICTED = 'artifacts:read:restricted';

export interface ArtifactMetadataInput {
  threadId: string;
  tenantId: string;
  sensitivity: ArtifactSensitivity;
  /** Seconds until the artifact expires; none = kept. */
  ttlSeconds?: number;
  encryptionKeyId?: string;
  contentType?: string;
  /** Free-form labels (tool name, tool call id, ...). */
  labels?: Record<string, string>;
}

export interface ArtifactMetadata extends ArtifactMetadataInput {
  artifactId: string;
  /** Hex SHA-256 of the content, checked again on every read. */
  sha256: string;
  sizeBytes: number;
  createdAt: string;
  expiresAt: string | undefined;
}

export interface SecurityContext {
  requesterId: string;
  tenantId: string;
  permissions: ReadonlySet<string> | readonly string[];
}

export type ArtifactReadResult =
  | { status: 'ok'; content: string; metadata: ArtifactMetadata }
  | { status: 'denied'; reason: string }
  | { status: 'not_found' };

export interface ArtifactAuditEvent {
  at: string;
  artifactId: string;
  tenantId: string;
  requesterId: string;
  action: 'read' | 'denied';
  reason?: string;
}

/**
 * Externalized content, content-addressed and access-controlled. A read from another tenant,
 * or of a confidential/restricted artifact without the permission, returns nothing and is
 * recorded as an audit event. Expired artifacts read as not found.
 */
export interface ArtifactStore {
  put(content: string, metadata: ArtifactMetadataInput): Promise<ArtifactMetadata>;
  getMetadata(artifactId: string, context: SecurityContext): Promise<ArtifactMetadata | null>;
  retrieve(artifactId: string, context: SecurityContext): Promise<ArtifactReadResult>;
  listAudit(tenantId: string, artifactId?: string): Promise<ArtifactAuditEvent[]>;
}

/** The permission rule every artifact store applies. */
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
