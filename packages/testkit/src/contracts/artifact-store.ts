import { createHash } from 'node:crypto';
import {
  ARTIFACT_ID_PATTERN,
  ARTIFACT_PERMISSION_CONFIDENTIAL,
  ARTIFACT_PERMISSION_RESTRICTED,
  type ArtifactMetadataInput,
  type ArtifactStore,
  type Clock,
  fixedClock,
  type SecurityContext,
} from '@compactor/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { awkwardText, expectCompactorError, largeText, uniqueId } from './contract-helpers.js';

/** The artifact store a contract test runs on, and its test hooks. */
export interface ArtifactStoreUnderTest {
  store: ArtifactStore;
  /** Change the stored bytes of an artifact behind the store's back (the integrity check must notice). */
  corruptContent?: (artifactId: string, tenantId: string) => Promise<void>;
  /** Runs after each test. */
  cleanup?: () => Promise<void>;
}

/** A clock that moves only when `advance` is called. */
export type ManualClock = Clock & { advance(milliseconds: number): void };

const START = '2025-06-01T12:00:00.000Z';

function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The id every adapter derives (documented with ARTIFACT_ID_PATTERN in core). */
function expectedArtifactId(tenantId: string, content: string): string {
  return `art_${sha256Hex(`${tenantId}\u0000${sha256Hex(content)}`)}`;
}

/**
 * The ArtifactStore contract (see the port's JSDoc). The factory receives a clock the suite moves
 * by hand (for TTLs) and must supply `corruptContent`; without it the integrity case fails.
 *
 * @param adapterName - Names the suite (`ArtifactStore contract: <adapterName>`).
 * @param makeStore - Called before each test with the suite's clock, for the store and its hooks.
 */
export function testArtifactStore(
  adapterName: string,
  makeStore: (clock: ManualClock) => Promise<ArtifactStoreUnderTest>,
): void {
  describe(`ArtifactStore contract: ${adapterName}`, () => {
    let store: ArtifactStore;
    let corruptContent: ArtifactStoreUnderTest['corruptContent'];
    let cleanup: (() => Promise<void>) | undefined;
    let clock: ManualClock;
    let tenantId: string;
    let threadId: string;
    let reader: SecurityContext;

    beforeEach(async () => {
      clock = fixedClock(START);
      const made = await makeStore(clock);
      store = made.store;
      corruptContent = made.corruptContent;
      cleanup = made.cleanup;
      tenantId = uniqueId('tenant');
      threadId = uniqueId('thread');
      reader = { requesterId: 'agent-1', tenantId, permissions: [] };
    });

    afterEach(async () => {
      await cleanup?.();
    });

    function input(overrides: Partial<ArtifactMetadataInput> = {}): ArtifactMetadataInput {
      return { threadId, tenantId, sensitivity: 'internal', ...overrides };
    }

    it('puts content with its metadata under a content-addressed, tenant-scoped id', async () => {
      const content = `tool output ${awkwardText}`;
      const metadata = await store.put(
        content,
        input({
          sensitivity: 'confidential',
          encryptionKeyId: 'key-confidential',
          contentType: 'text/plain',
          labels: { toolName: 'read_file', toolCallId: 'call-9' },
        }),
      );
      expect(metadata.artifactId).toMatch(ARTIFACT_ID_PATTERN);
      expect(metadata.artifactId).toBe(expectedArtifactId(tenantId, content));
      expect(metadata).toMatchObject({
        threadId,
        tenantId,
        sensitivity: 'confidential',
        encryptionKeyId: 'key-confidential',
        contentType: 'text/plain',
        labels: { toolName: 'read_file', toolCallId: 'call-9' },
        sha256: sha256Hex(content),
        sizeBytes: Buffer.byteLength(content, 'utf8'),
        createdAt: START,
      });
      expect(metadata.expiresAt).toBeUndefined();
    });

    it('retrieves the content and metadata for its tenant', async () => {
      const content = `${awkwardText}\n${largeText(1024 * 1024)}`;
      const metadata = await store.put(content, input());
      expect(await store.retrieve(metadata.artifactId, reader)).toEqual({ status: 'ok', content, metadata });
    });

    it('gives metadata without content, for its tenant only', async () => {
      const metadata = await store.put('some content', input({ sensitivity: 'restricted' }));
      expect(await store.getMetadata(metadata.artifactId, reader)).toEqual(metadata);
      expect(
        await store.getMetadata(metadata.artifactId, { ...reader, tenantId: uniqueId('tenant') }),
      ).toBeNull();
      expect(await store.getMetadata(`art_${'0'.repeat(64)}`, reader)).toBeNull();
    });

    it('is idempotent: the same content for the same tenant is stored once', async () => {
      const first = await store.put('repeated content', input());
      clock.advance(5_000);
      const second = await store.put('repeated content', input({ labels: { note: 'second put' } }));
      expect(second).toEqual(first);
      const concurrent = await Promise.all(
        Array.from({ length: 6 }, () => store.put('raced content', input())),
      );
      expect(new Set(concurrent.map((metadata) => metadata.artifactId)).size).toBe(1);
      expect(new Set(concurrent.map((metadata) => metadata.createdAt)).size).toBe(1);
    });

    it('gives two tenants different ids for the same content', async () => {
      const other = uniqueId('tenant');
      const mine = await store.put('shared bytes', input());
      const theirs = await store.put('shared bytes', input({ tenantId: other }));
      expect(theirs.artifactId).not.toBe(mine.artifactId);
      expect(theirs.sha256).toBe(mine.sha256);
      expect((await store.retrieve(theirs.artifactId, { ...reader, tenantId: other })).status).toBe('ok');
    });

    it('answers another tenant exactly as for absent content, and writes nothing to either audit log', async () => {
      const metadata = await store.put('private', input({ sensitivity: 'public' }));
      const intruder: SecurityContext = {
        requesterId: 'intruder-7',
        tenantId: uniqueId('tenant'),
        permissions: [ARTIFACT_PERMISSION_CONFIDENTIAL, ARTIFACT_PERMISSION_RESTRICTED],
      };
      // The intruder knows the owner's tenant id and guesses the content, so it can derive the id:
      // the answer must be the one for an id nobody holds, or it learns that the owner has it.
      const neverStored = expectedArtifactId(tenantId, 'content nobody stored');
      for (let round = 0; round < 50; round += 1) {
        expect(await store.retrieve(metadata.artifactId, intruder)).toEqual(
          await store.retrieve(neverStored, intruder),
        );
      }
      expect(await store.retrieve(metadata.artifactId, intruder)).toEqual({ status: 'not_found' });
      expect(await store.getMetadata(metadata.artifactId, intruder)).toBeNull();
      expect(await store.listAudit(tenantId)).toEqual([]);
      expect(await store.listAudit(intruder.tenantId)).toEqual([]);
      expect((await store.retrieve(metadata.artifactId, reader)).status).toBe('ok');
    });

    it('bounds denied-read audit records per tenant and window', async () => {
      const secret = await store.put('secret', input({ sensitivity: 'restricted' }));
      // One requester refused again and again: recorded once per window.
      for (let attempt = 0; attempt < 30; attempt += 1) {
        expect((await store.retrieve(secret.artifactId, reader)).status).toBe('denied');
      }
      expect(await store.listAudit(tenantId, secret.artifactId)).toHaveLength(1);
      // Many requesters: at most the per-window limit (100), the last one saying so.
      for (let requester = 0; requester < 150; requester += 1) {
        await store.retrieve(secret.artifactId, { ...reader, requesterId: `probe-${requester}` });
      }
      const denied = await store.listAudit(tenantId, secret.artifactId);
      expect(denied).toHaveLength(100);
      expect(denied.at(-1)?.reason).toMatch(/audit limit/);
      // A new window records refusals again; successful reads are never limited.
      clock.advance(60_000);
      await store.retrieve(secret.artifactId, reader);
      await store.retrieve(secret.artifactId, { ...reader, permissions: [ARTIFACT_PERMISSION_RESTRICTED] });
      const after = (await store.listAudit(tenantId, secret.artifactId)).slice(100);
      expect(after.map((event) => event.action)).toEqual(['denied', 'read']);
    });

    it('requires a permission for confidential and restricted content', async () => {
      const confidential = await store.put('confidential', input({ sensitivity: 'confidential' }));
      const restricted = await store.put('restricted', input({ sensitivity: 'restricted' }));
      const publicArtifact = await store.put('public', input({ sensitivity: 'public' }));
      const internal = await store.put('internal', input({ sensitivity: 'internal' }));

      const denied = await store.retrieve(confidential.artifactId, reader);
      expect(denied.status === 'denied' && denied.reason).toContain(ARTIFACT_PERMISSION_CONFIDENTIAL);
      expect(
        (
          await store.retrieve(confidential.artifactId, {
            ...reader,
            permissions: [ARTIFACT_PERMISSION_CONFIDENTIAL],
          })
        ).status,
      ).toBe('ok');
      const restrictedWithWrongPermission = await store.retrieve(restricted.artifactId, {
        ...reader,
        permissions: new Set([ARTIFACT_PERMISSION_CONFIDENTIAL]),
      });
      expect(restrictedWithWrongPermission.status).toBe('denied');
      const restrictedAllowed = await store.retrieve(restricted.artifactId, {
        ...reader,
        permissions: new Set([ARTIFACT_PERMISSION_RESTRICTED]),
      });
      expect(restrictedAllowed).toMatchObject({ status: 'ok', content: 'restricted' });
      expect((await store.retrieve(publicArtifact.artifactId, reader)).status).toBe('ok');
      expect((await store.retrieve(internal.artifactId, reader)).status).toBe('ok');
    });

    it('audits every read and refusal in order', async () => {
      const metadata = await store.put('audited', input({ sensitivity: 'confidential' }));
      await store.retrieve(metadata.artifactId, reader);
      clock.advance(1_000);
      await store.retrieve(metadata.artifactId, {
        ...reader,
        requesterId: 'agent-2',
        permissions: [ARTIFACT_PERMISSION_CONFIDENTIAL],
      });
      const other = await store.put('other artifact', input());
      await store.retrieve(other.artifactId, reader);
      const audit = await store.listAudit(tenantId, metadata.artifactId);
      expect(audit.map(({ action, requesterId, at }) => ({ action, requesterId, at }))).toEqual([
        { action: 'denied', requesterId: 'agent-1', at: START },
        { action: 'read', requesterId: 'agent-2', at: '2025-06-01T12:00:01.000Z' },
      ]);
      expect(audit[0]?.reason).toContain(ARTIFACT_PERMISSION_CONFIDENTIAL);
      expect((await store.listAudit(tenantId)).map((event) => event.artifactId)).toEqual([
        metadata.artifactId,
        metadata.artifactId,
        other.artifactId,
      ]);
    });

    it('reads expired artifacts as not found', async () => {
      const metadata = await store.put('short-lived', input({ ttlSeconds: 60 }));
      expect(metadata.expiresAt).toBe('2025-06-01T12:01:00.000Z');
      clock.advance(59_000);
      expect((await store.retrieve(metadata.artifactId, reader)).status).toBe('ok');
      clock.advance(2_000);
      expect(await store.retrieve(metadata.artifactId, reader)).toEqual({ status: 'not_found' });
      expect(await store.getMetadata(metadata.artifactId, reader)).toBeNull();
      const again = await store.put('short-lived', input({ ttlSeconds: 60 }));
      expect(again.artifactId).toBe(metadata.artifactId);
      expect(again.createdAt).toBe('2025-06-01T12:01:01.000Z');
      expect((await store.retrieve(again.artifactId, reader)).status).toBe('ok');
    });

    it('never weakens an artifact on a second put: sensitivity up, expiry later', async () => {
      const first = await store.put('escalating', input({ sensitivity: 'public', ttlSeconds: 60 }));
      const stricter = await store.put('escalating', input({ sensitivity: 'restricted', ttlSeconds: 30 }));
      expect(stricter.artifactId).toBe(first.artifactId);
      expect(stricter.sensitivity).toBe('restricted');
      expect(stricter.expiresAt).toBe(first.expiresAt);
      const weaker = await store.put('escalating', input({ sensitivity: 'internal' }));
      expect(weaker.sensitivity).toBe('restricted');
      expect(weaker.expiresAt).toBeUndefined();
      expect((await store.retrieve(first.artifactId, reader)).status).toBe('denied');
      clock.advance(3_600_000);
      expect(await store.getMetadata(first.artifactId, reader)).toMatchObject({ sensitivity: 'restricted' });
    });

    it('answers not_found for unknown and malformed ids, without auditing', async () => {
      expect(await store.retrieve(`art_${'a'.repeat(64)}`, reader)).toEqual({ status: 'not_found' });
      expect(await store.retrieve('../../etc/passwd', reader)).toEqual({ status: 'not_found' });
      expect(await store.getMetadata('art_../../x', reader)).toBeNull();
      expect(await store.listAudit(tenantId)).toEqual([]);
    });

    it('rejects invalid metadata', async () => {
      await expectCompactorError(store.put('x', input({ tenantId: '' })), 'validation');
      await expectCompactorError(store.put('x', input({ threadId: '' })), 'validation');
      await expectCompactorError(
        store.put('x', input({ sensitivity: 'secret' as ArtifactMetadataInput['sensitivity'] })),
        'validation',
      );
      await expectCompactorError(store.put('x', input({ ttlSeconds: 0 })), 'validation');
    });

    it('detects content changed behind its back (IntegrityError)', async () => {
      if (!corruptContent) {
        throw new Error(`${adapterName} must supply corruptContent so the integrity check can be tested`);
      }
      const metadata = await store.put('precious bytes that must not change', input());
      await corruptContent(metadata.artifactId, tenantId);
      await expectCompactorError(store.retrieve(metadata.artifactId, reader), 'integrity');
    });
  });
}
