import { CompactorError } from '@compactor/core';
import { describe, expect, it } from 'vitest';
import { loadIngestConfig, parseApiKeys, requesterIdOf } from '../src/index.js';

/** The CompactorError `action` throws (the test fails if it throws nothing else). */
function thrownBy(action: () => unknown): CompactorError {
  try {
    action();
  } catch (error) {
    if (CompactorError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a CompactorError');
}

describe('parseApiKeys', () => {
  it('maps keys to tenants, with optional permissions after the first colon', () => {
    const keys = parseApiKeys(
      ' k1=tenantA , k2=tenantB:artifacts:read:confidential+artifacts:read:restricted,k3=tenant.c:',
    );
    expect([...keys]).toEqual([
      ['k1', { tenantId: 'tenantA', permissions: [] }],
      [
        'k2',
        { tenantId: 'tenantB', permissions: ['artifacts:read:confidential', 'artifacts:read:restricted'] },
      ],
      ['k3', { tenantId: 'tenant.c', permissions: [] }],
    ]);
  });

  it.each([
    ['no equals sign', 'k1tenantA', 'COMPACTOR_API_KEYS.0'],
    ['an empty key', '=tenantA', 'COMPACTOR_API_KEYS.0'],
    ['an empty tenant', 'k1=tenantA,k2=', 'COMPACTOR_API_KEYS.1'],
    ['a tenant with a slash', 'k1=a/b', 'COMPACTOR_API_KEYS.0'],
    ['a bad permission', 'k1=a:read files', 'COMPACTOR_API_KEYS.0'],
    ['a repeated key', 'k1=a,k1=b', 'COMPACTOR_API_KEYS.1'],
  ])('refuses %s with the entry it is in', (_case, text, path) => {
    const error = thrownBy(() => parseApiKeys(text));
    expect(CompactorError.hasCode(error, 'validation')).toBe(true);
    expect(error.details.issues).toEqual([expect.objectContaining({ path })]);
  });

  it('names a key in audits by a hash that does not contain it', () => {
    expect(requesterIdOf('secret-key')).toMatch(/^key-[0-9a-f]{16}$/);
    expect(requesterIdOf('secret-key')).toBe(requesterIdOf('secret-key'));
    expect(requesterIdOf('secret-key')).not.toBe(requesterIdOf('secret-kez'));
  });
});

describe('loadIngestConfig', () => {
  it('reads the environment once with defaults', () => {
    const config = loadIngestConfig({ COMPACTOR_API_KEYS: 'k=t', PORT: '9000' });
    expect(config).toMatchObject({
      port: 9000,
      host: '127.0.0.1',
      limits: { maxBodyBytes: 5 * 1024 * 1024, maxEventsPerBatch: 500 },
    });
    expect(config.apiKeys.get('k')).toEqual({ tenantId: 't', permissions: [] });
  });

  it('names every bad variable', () => {
    const error = thrownBy(() =>
      loadIngestConfig({ PORT: 'eighty', COMPACTOR_MAX_EVENTS_PER_BATCH: 'many' }),
    );
    expect(error.code).toBe('validation');
    const paths = (error.details.issues as Array<{ path: string }>).map((issue) => issue.path).sort();
    expect(paths).toEqual(['COMPACTOR_API_KEYS', 'COMPACTOR_MAX_EVENTS_PER_BATCH', 'PORT']);
  });
});
