import type { ArtifactAuditEvent } from '@compactor/core';

/**
 * Key layout under the configured prefix (default `artifacts`):
 *   <prefix>/<tenant>/<sha256>                         content, content-addressed per tenant
 *   <prefix>/_records/<tenant>/<artifactId>.json       the artifact's metadata record, under its tenant
 *   <prefix>/_audit/<tenant>/<artifactId>/<order>.json one audit event per object
 * A tenant id becomes one key segment: percent-encoded, dots and underscores included, so it can
 * never contain `/`, be `.`/`..`, or start like the `_records`/`_audit` folders.
 *
 * @param tenantId - The tenant id.
 * @returns The encoded key segment.
 */
export function tenantSegment(tenantId: string): string {
  return encodeURIComponent(tenantId).replace(
    /[!'()*._~]/g,
    (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

function join(prefix: string, ...parts: string[]): string {
  const trimmed = prefix.replace(/^\/+|\/+$/g, '');
  return [trimmed, ...parts].filter((part) => part.length > 0).join('/');
}

/**
 * The key of a tenant's content object.
 *
 * @param prefix - The configured key prefix.
 * @param tenantId - The tenant id.
 * @param sha256 - The content's hex SHA-256.
 * @returns The object key.
 */
export function contentKey(prefix: string, tenantId: string, sha256: string): string {
  return join(prefix, tenantSegment(tenantId), sha256);
}

/**
 * Records are looked up under the asking tenant (ADR-0058): another tenant's artifact id finds no
 * record there, exactly as an id nobody stored.
 *
 * @param prefix - The configured key prefix.
 * @param tenantId - The asking tenant.
 * @param artifactId - The artifact id.
 * @returns The record's object key.
 */
export function recordKey(prefix: string, tenantId: string, artifactId: string): string {
  return join(prefix, '_records', tenantSegment(tenantId), `${artifactId}.json`);
}

/**
 * The key prefix (ending in `/`) of a tenant's audit events, or of one artifact's.
 *
 * @param prefix - The configured key prefix.
 * @param tenantId - The tenant id.
 * @param artifactId - Narrows to one artifact when given.
 * @returns The prefix to list.
 */
export function auditPrefix(prefix: string, tenantId: string, artifactId?: string): string {
  return `${join(prefix, '_audit', tenantSegment(tenantId), ...(artifactId === undefined ? [] : [artifactId]))}/`;
}

let auditCounter = 0;

/**
 * `<at in ms>-<wall clock ms>-<counter>-<random>`: sorts audit events by their time, then by
 * when they were written (the counter orders events written in the same millisecond by this process).
 */
export function auditOrderToken(event: Pick<ArtifactAuditEvent, 'at'>): string {
  auditCounter = (auditCounter + 1) % 1_000_000;
  const at = Date.parse(event.at);
  const random = Math.floor(Math.random() * 0xffffff)
    .toString(16)
    .padStart(6, '0');
  return [
    String(Number.isNaN(at) ? 0 : at).padStart(15, '0'),
    String(Date.now()).padStart(15, '0'),
    String(auditCounter).padStart(6, '0'),
    random,
  ].join('-');
}

export function auditKey(prefix: string, event: ArtifactAuditEvent): string {
  return `${auditPrefix(prefix, event.tenantId, event.artifactId)}${auditOrderToken(event)}.json`;
}

/** The order token of an audit key (its file name without `.json`). */
export function auditKeyOrder(key: string): string {
  return (key.split('/').at(-1) ?? '').replace(/\.json$/, '');
}
