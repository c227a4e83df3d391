import { hash } from 'node:crypto';
import { ValidationError } from '@compactor/core';

/** What an API key grants: one tenant, and optional permissions (e.g. `artifacts:read:confidential`). */
export interface ApiKeyGrant {
  tenantId: string;
  permissions: readonly string[];
}

/** The authenticated caller of a request. */
export interface Caller extends ApiKeyGrant {
  /** Stable, non-secret id of the key (for audits and logs): never the key itself. */
  requesterId: string;
}

const TENANT_PATTERN = /^[A-Za-z0-9._-]{1,200}$/;
const PERMISSION_PATTERN = /^[A-Za-z0-9._:-]{1,200}$/;

/**
 * Parse `COMPACTOR_API_KEYS`: comma-separated entries `key=tenant` or
 * `key=tenant:permission+permission...`, e.g.
 * `k1=tenantA,k2=tenantB:artifacts:read:confidential+artifacts:read:restricted`.
 * Everything after the first `:` of the value is the permission list, split on `+`
 * (permissions themselves contain colons). Keys may not contain `=` or `,`; tenant ids are
 * letters, digits, `.`, `_` and `-`. Whitespace around entries is ignored.
 *
 * @param text - The variable's value.
 * @returns Each key's grant.
 * @throws ValidationError for a malformed entry, tenant id or permission, or a repeated key.
 */
export function parseApiKeys(text: string): Map<string, ApiKeyGrant> {
  const grants = new Map<string, ApiKeyGrant>();
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  entries.forEach((entry, index) => {
    const path = `COMPACTOR_API_KEYS.${index}`;
    const separator = entry.indexOf('=');
    if (separator <= 0) {
      throw new ValidationError('invalid COMPACTOR_API_KEYS entry', [
        { path, message: 'expected key=tenant or key=tenant:permission+permission' },
      ]);
    }
    const key = entry.slice(0, separator).trim();
    const value = entry.slice(separator + 1).trim();
    const colon = value.indexOf(':');
    const tenantId = colon < 0 ? value : value.slice(0, colon);
    const permissions =
      colon < 0
        ? []
        : value
            .slice(colon + 1)
            .split('+')
            .filter((item) => item !== '');
    if (!TENANT_PATTERN.test(tenantId)) {
      throw new ValidationError('invalid COMPACTOR_API_KEYS entry', [
        { path, message: 'the tenant id must be 1-200 letters, digits, ".", "_" or "-"' },
      ]);
    }
    const badPermission = permissions.find((permission) => !PERMISSION_PATTERN.test(permission));
    if (badPermission !== undefined) {
      throw new ValidationError('invalid COMPACTOR_API_KEYS entry', [
        { path, message: `invalid permission "${badPermission}"` },
      ]);
    }
    if (grants.has(key)) {
      throw new ValidationError('invalid COMPACTOR_API_KEYS entry', [
        { path, message: 'the same key appears twice' },
      ]);
    }
    grants.set(key, { tenantId, permissions });
  });
  return grants;
}

/**
 * The id written to audit logs for a key: a short hash, so logs never hold the secret.
 *
 * @param apiKey - The key.
 * @returns `key-` and 16 hex digits of its SHA-256.
 */
export function requesterIdOf(apiKey: string): string {
  return `key-${hash('sha256', apiKey, 'hex').slice(0, 16)}`;
}

/**
 * Look callers up by the SHA-256 of their key, so the lookup never compares secrets
 * character by character.
 */
export function createKeyring(apiKeys: ReadonlyMap<string, string | ApiKeyGrant>) {
  const byDigest = new Map<string, Caller>();
  for (const [key, grant] of apiKeys) {
    const resolved = typeof grant === 'string' ? { tenantId: grant, permissions: [] } : grant;
    byDigest.set(digest(key), { ...resolved, requesterId: requesterIdOf(key) });
  }
  return {
    find(apiKey: string): Caller | undefined {
      return byDigest.get(digest(apiKey));
    },
  };
}

/** One-shot `hash` rather than a `Hash` object per request: the same digest, less work (ADR-0243). */
function digest(key: string): string {
  return hash('sha256', key, 'hex');
}
