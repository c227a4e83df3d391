import type { ArtifactMetadata } from '@compactor/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeRecord, encodeRecord } from '../src/artifact-record.js';
import { auditKeyOrder, auditOrderToken, contentKey, recordKey, tenantSegment } from '../src/object-keys.js';
import { objectMetadata, objectMetadataValue } from '../src/object-metadata.js';

describe('tenantSegment', () => {
  it('is one safe, reversible key segment for any tenant id', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', minLength: 1 }), (tenantId) => {
        const segment = tenantSegment(tenantId);
        expect(segment).toMatch(/^[A-Za-z0-9%-]+$/);
        expect(decodeURIComponent(segment)).toBe(tenantId);
      }),
    );
    for (const hostile of ['.', '..', '_records', '_audit', 'a/b']) {
      expect(['.', '..', '_records', '_audit']).not.toContain(tenantSegment(hostile));
      expect(tenantSegment(hostile)).not.toContain('/');
    }
  });

  it('lays out content and records under the prefix', () => {
    expect(contentKey('/artifacts/', 'acme', 'f'.repeat(64))).toBe(`artifacts/acme/${'f'.repeat(64)}`);
    expect(contentKey('', 'acme', 'abc')).toBe('acme/abc');
    expect(recordKey('p/q', 't', 'art_1')).toBe('p/q/_records/t/art_1.json');
  });
});

describe('audit order tokens', () => {
  it('sort by event time first, then by write order', () => {
    const tokens = [
      auditOrderToken({ at: '2025-06-01T12:00:01.000Z' }),
      auditOrderToken({ at: '2025-06-01T12:00:00.000Z' }),
      auditOrderToken({ at: '2025-06-01T12:00:00.000Z' }),
      auditOrderToken({ at: '2025-06-01T12:00:00.000Z' }),
    ];
    expect([...tokens].sort()).toEqual([tokens[1], tokens[2], tokens[3], tokens[0]]);
    expect(auditKeyOrder(`p/_audit/t/art_1/${tokens[0]}.json`)).toBe(tokens[0]);
  });
});

const sample: ArtifactMetadata = {
  artifactId: `art_${'1'.repeat(64)}`,
  tenantId: 'tenant é/1',
  threadId: 'thread 🌍',
  sensitivity: 'confidential',
  ttlSeconds: 60,
  labels: { toolName: 'grep' },
  sha256: 'a'.repeat(64),
  sizeBytes: 12,
  createdAt: '2025-06-01T12:00:00.000Z',
  expiresAt: '2025-06-01T12:01:00.000Z',
};

describe('object metadata', () => {
  it('is ASCII and reads back to the same values', () => {
    const encoded = objectMetadata(sample, 'alias/k');
    for (const value of Object.values(encoded)) expect(value).toMatch(/^[\x20-\x7e]*$/);
    expect(objectMetadataValue(encoded, 'tenant-id')).toBe(sample.tenantId);
    expect(objectMetadataValue(encoded, 'thread-id')).toBe(sample.threadId);
    expect(objectMetadataValue(encoded, 'encryption-key-id')).toBe('alias/k');
    expect(objectMetadataValue(encoded, 'expires-at')).toBe(sample.expiresAt);
    expect(Object.keys(encoded)).not.toContain('labels');
  });
});

describe('metadata records', () => {
  it('round-trip, expiresAt included when absent', () => {
    const record = { formatVersion: 1 as const, metadata: sample, content: { bucket: 'b', key: 'k' } };
    expect(decodeRecord(encodeRecord(record))).toEqual(record);
    const forever = { ...record, metadata: { ...sample, expiresAt: undefined } };
    const decoded = decodeRecord(encodeRecord(forever));
    expect(decoded?.metadata).toHaveProperty('expiresAt', undefined);
  });

  it('are null for anything else', () => {
    for (const text of ['', 'not json', '{"formatVersion":2}', '{"formatVersion":1,"metadata":{}}']) {
      expect(decodeRecord(new TextEncoder().encode(text))).toBeNull();
    }
  });
});
