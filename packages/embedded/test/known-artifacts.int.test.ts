/**
 * ADR-0345: an exclusive store answers a put of content it already put from memory. Nothing a caller
 * sees may change: the answers equal those of a store that reads every put's metadata from disk.
 */
import { type ArtifactMetadata, type ArtifactSensitivity, fixedClock, noopLogger } from '@compactor/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KnownArtifacts } from '../src/artifact-store/known-artifacts.js';
import { createEmbeddedStores } from '../src/index.js';
import { makeTemporaryDirectory } from './temporary-data-directory.js';

const SENSITIVITIES: ArtifactSensitivity[] = ['public', 'internal', 'confidential', 'restricted'];

interface PutStep {
  content: number;
  sensitivity: ArtifactSensitivity;
  ttlSeconds: number | undefined;
  advanceSeconds: number;
  tenant: number;
}

const putStep: fc.Arbitrary<PutStep> = fc.record({
  content: fc.nat({ max: 3 }),
  sensitivity: fc.constantFrom(...SENSITIVITIES),
  ttlSeconds: fc.option(fc.integer({ min: 1, max: 120 }), { nil: undefined }),
  advanceSeconds: fc.nat({ max: 90 }),
  tenant: fc.nat({ max: 1 }),
});

describe('a put of known content answered from memory (ADR-0345)', () => {
  it('answers every put and read as a store that reads metadata from disk each time', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(putStep, { minLength: 1, maxLength: 12 }), async (steps) => {
        const clock = fixedClock('2025-06-01T12:00:00.000Z');
        const exclusiveDirectory = await makeTemporaryDirectory();
        const sharedDirectory = await makeTemporaryDirectory();
        // Shared mode keeps no memo (another process may strengthen an artifact): the reference.
        const remembering = await createEmbeddedStores({
          dataDir: exclusiveDirectory.dataDir,
          clock,
          logger: noopLogger,
        });
        const reading = await createEmbeddedStores({
          dataDir: sharedDirectory.dataDir,
          sharing: 'shared',
          clock,
          logger: noopLogger,
        });
        try {
          for (const step of steps) {
            clock.advance(step.advanceSeconds * 1000);
            const input = {
              threadId: 'thread',
              tenantId: `tenant-${step.tenant}`,
              sensitivity: step.sensitivity,
              contentType: 'text/plain',
              labels: { step: String(step.content) },
              ...(step.ttlSeconds === undefined ? {} : { ttlSeconds: step.ttlSeconds }),
            };
            const content = `output ${step.content}`;
            const answered = await remembering.artifacts.put(content, input);
            const expected = await reading.artifacts.put(content, input);
            expect(answered).toEqual(expected);
            const context = { requesterId: 'r', tenantId: input.tenantId, permissions: [] };
            expect(await remembering.artifacts.getMetadata(answered.artifactId, context)).toEqual(
              await reading.artifacts.getMetadata(expected.artifactId, context),
            );
          }
        } finally {
          await remembering.close();
          await reading.close();
          await exclusiveDirectory.remove();
          await sharedDirectory.remove();
        }
      }),
      { numRuns: 25 },
    );
  }, 120_000);

  it('hands each caller its own metadata: changing one answer changes no later one', async () => {
    const { dataDir, remove } = await makeTemporaryDirectory();
    const stores = await createEmbeddedStores({ dataDir, logger: noopLogger });
    try {
      const input = {
        threadId: 't',
        tenantId: 'a',
        sensitivity: 'internal' as const,
        labels: { tool: 'bash' },
      };
      const first = await stores.artifacts.put('same bytes', input);
      const second = await stores.artifacts.put('same bytes', input);
      second.createdAt = '1999-01-01T00:00:00.000Z';
      second.labels!.tool = 'changed';
      const third = await stores.artifacts.put('same bytes', input);
      expect(third).toEqual(first);
      expect(third.labels).toEqual({ tool: 'bash' });
    } finally {
      await stores.close();
      await remove();
    }
  });

  it('in shared mode, sees what another opener of the directory strengthened', async () => {
    const { dataDir, remove } = await makeTemporaryDirectory();
    const one = await createEmbeddedStores({ dataDir, sharing: 'shared', logger: noopLogger });
    const other = await createEmbeddedStores({ dataDir, sharing: 'shared', logger: noopLogger });
    try {
      const input = { threadId: 't', tenantId: 'a', sensitivity: 'internal' as const };
      await one.artifacts.put('secret-ish output', input);
      await other.artifacts.put('secret-ish output', { ...input, sensitivity: 'restricted' });
      // A memo in `one` would still say internal: the plan would show a preview of restricted content.
      expect((await one.artifacts.put('secret-ish output', input)).sensitivity).toBe('restricted');
    } finally {
      await one.close();
      await other.close();
      await remove();
    }
  });
});

describe('KnownArtifacts', () => {
  function metadata(index: number): ArtifactMetadata {
    return {
      artifactId: `art_${String(index).padStart(64, '0')}`,
      threadId: 't',
      tenantId: 'a',
      sensitivity: 'internal',
      sha256: 'f'.repeat(64),
      sizeBytes: index,
      createdAt: '2025-06-01T12:00:00.000Z',
      expiresAt: undefined,
    };
  }

  it('stays within its bytes, dropping the least recently used first', () => {
    const known = new KnownArtifacts(4_000);
    for (let index = 0; index < 200; index += 1) {
      known.remember(metadata(index));
      // The first stays in use, so it is never the least recently used.
      expect(known.get(metadata(0).artifactId)).toBeDefined();
    }
    expect(known.size).toBeLessThan(200);
    expect(known.size).toBeGreaterThan(1);
    expect(known.get(metadata(199).artifactId)).toEqual(metadata(199));
    expect(known.get(metadata(1).artifactId)).toBeUndefined();
  });

  it('remembers what the JSON file holds, not the object it was given', () => {
    const known = new KnownArtifacts(64 * 1024);
    const given = metadata(7);
    known.remember(given);
    given.sensitivity = 'restricted';
    const remembered = known.get(given.artifactId)!;
    expect(remembered.sensitivity).toBe('internal');
    // An absent expiry is no key at all in `<id>.json`, as a read of it gives it.
    expect('expiresAt' in remembered).toBe(false);
  });
});
