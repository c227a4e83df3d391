import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ARTIFACT_ID_PATTERN,
  type ArtifactMetadata,
  type ArtifactSensitivity,
  artifactContentSha256,
  artifactIdFor,
  DeniedAuditLimiter,
  isArtifactExpired,
  isArtifactId,
  laterExpiry,
  strengthenArtifact,
  stricterSensitivity,
} from '../src/index.js';

const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const SENSITIVITIES: ArtifactSensitivity[] = ['public', 'internal', 'confidential', 'restricted'];

describe('artifact ids', () => {
  it('are art_ + sha256(tenant, NUL, sha256(content)), different per tenant', () => {
    const id = artifactIdFor('acme', artifactContentSha256('hello'));
    expect(id).toBe(`art_${sha(`acme\u0000${sha('hello')}`)}`);
    expect(id).toMatch(ARTIFACT_ID_PATTERN);
    expect(isArtifactId(id)).toBe(true);
    expect(isArtifactId('art_../../x')).toBe(false);
    expect(isArtifactId(42)).toBe(false);
    expect(artifactIdFor('other', sha('hello'))).not.toBe(id);
    expect(artifactContentSha256(new TextEncoder().encode('hello'))).toBe(sha('hello'));
  });
});

describe('sensitivity and expiry rules', () => {
  it('never lower a sensitivity; "no expiry" wins; expiry is inclusive', () => {
    fc.assert(
      fc.property(fc.constantFrom(...SENSITIVITIES), fc.constantFrom(...SENSITIVITIES), (a, b) => {
        const stricter = stricterSensitivity(a, b);
        expect(stricter).toBe(stricterSensitivity(b, a));
        expect(SENSITIVITIES.indexOf(stricter)).toBe(
          Math.max(SENSITIVITIES.indexOf(a), SENSITIVITIES.indexOf(b)),
        );
      }),
    );
    expect(laterExpiry('2025-01-03T00:00:00.000Z', '2025-01-02T00:00:00.000Z')).toBe(
      '2025-01-03T00:00:00.000Z',
    );
    expect(laterExpiry(undefined, '2025-01-02T00:00:00.000Z')).toBeUndefined();
    expect(isArtifactExpired('2025-01-01T00:00:00.000Z', new Date('2025-01-01T00:00:00.000Z'))).toBe(true);
    expect(isArtifactExpired('2025-01-01T00:00:00.000Z', new Date('2024-12-31T23:59:59.999Z'))).toBe(false);
    expect(isArtifactExpired(undefined, new Date(8.64e15))).toBe(false);
  });

  it('strengthens a second put without weakening it, and keeps ttlSeconds meaning createdAt → expiry', () => {
    const current: ArtifactMetadata = {
      artifactId: `art_${'1'.repeat(64)}`,
      tenantId: 't',
      threadId: 'x',
      sensitivity: 'internal',
      ttlSeconds: 60,
      sha256: 'a'.repeat(64),
      sizeBytes: 1,
      createdAt: '2025-06-01T12:00:00.000Z',
      expiresAt: '2025-06-01T12:01:00.000Z',
    };
    expect(strengthenArtifact(current, 'public', '2025-06-01T12:00:30.000Z')).toBe(current);
    expect(strengthenArtifact(current, 'restricted', '2025-06-01T12:02:00.000Z')).toMatchObject({
      sensitivity: 'restricted',
      ttlSeconds: 120,
      expiresAt: '2025-06-01T12:02:00.000Z',
    });
    const forever = strengthenArtifact(current, 'internal', undefined);
    expect(forever.expiresAt).toBeUndefined();
    expect('ttlSeconds' in forever).toBe(false);
  });
});

describe('DeniedAuditLimiter', () => {
  it('records each distinct refusal once per window, at most the limit, whatever the requests', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom('a', 'b'), fc.nat(30), fc.nat(5), fc.nat(120_000)), {
          maxLength: 400,
        }),
        (requests) => {
          const limiter = new DeniedAuditLimiter({ windowMs: 60_000, maxRecordsPerWindow: 10 });
          const recorded = new Map<string, number>();
          const sorted = [...requests].sort((x, y) => x[3] - y[3]);
          for (const [tenantId, artifact, requester, at] of sorted) {
            const verdict = limiter.verdict(
              { tenantId, artifactId: `art_${artifact}`, requesterId: `r${requester}`, reason: 'denied' },
              new Date(at),
            );
            if (verdict.kind === 'skip') continue;
            const bucket = `${tenantId}`;
            recorded.set(bucket, (recorded.get(bucket) ?? 0) + 1);
          }
          // Windows restart on the first refusal after one ends: at most 3 windows in 120 s.
          for (const count of recorded.values()) expect(count).toBeLessThanOrEqual(30);
        },
      ),
    );
    const limiter = new DeniedAuditLimiter({ windowMs: 1_000, maxRecordsPerWindow: 2 });
    const at = new Date(0);
    const event = { tenantId: 't', artifactId: 'art_1', requesterId: 'r', reason: 'no' };
    expect(limiter.verdict(event, at).kind).toBe('record');
    expect(limiter.verdict(event, at).kind).toBe('skip');
    expect(limiter.verdict({ ...event, requesterId: 'r2' }, at).kind).toBe('record-limit-notice');
    expect(limiter.verdict({ ...event, requesterId: 'r3' }, at).kind).toBe('skip');
    expect(limiter.verdict(event, new Date(1_000)).kind).toBe('record');
  });
});
