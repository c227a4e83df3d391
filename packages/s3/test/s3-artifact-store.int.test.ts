import { randomUUID } from 'node:crypto';
import {
  ARTIFACT_PERMISSION_CONFIDENTIAL,
  ARTIFACT_PERMISSION_RESTRICTED,
  type ArtifactMetadataInput,
  CompactorError,
  fixedClock,
  type SecurityContext,
  artifactContentSha256 as sha256Hex,
} from '@compactor/core';
import { type RunningS3rver, startS3rver } from '@compactor/testkit/s3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAwsS3ObjectClient,
  OBJECT_METADATA_NAMES,
  objectMetadataValue,
  type PutObjectRequest,
  recordKey,
  S3ArtifactStore,
  type S3ArtifactStoreOptions,
  type S3ObjectClient,
  TTL_DAYS_TAG,
} from '../src/index.js';

const BUCKET = 'compactor-artifacts';
const CONFIDENTIAL_BUCKET = 'compactor-confidential';
const RESTRICTED_BUCKET = 'compactor-restricted';

let server: RunningS3rver;
let objects: ReturnType<typeof createAwsS3ObjectClient>;

beforeAll(async () => {
  server = await startS3rver();
  for (const bucket of [BUCKET, CONFIDENTIAL_BUCKET, RESTRICTED_BUCKET]) await server.createBucket(bucket);
  objects = createAwsS3ObjectClient({ config: server.clientConfig() });
});

afterAll(async () => {
  objects?.destroy();
  await server?.stop();
});

/** The port with every putObject request recorded (what the adapter asked S3 to do). */
function recordingClient(client: S3ObjectClient): { client: S3ObjectClient; puts: PutObjectRequest[] } {
  const puts: PutObjectRequest[] = [];
  return {
    puts,
    client: {
      ...client,
      putObject(request) {
        puts.push(request);
        return client.putObject(request);
      },
    },
  };
}

function newStore(options: Partial<S3ArtifactStoreOptions> = {}) {
  const prefix = `test-${randomUUID()}`;
  const store = new S3ArtifactStore({
    client: objects,
    bucket: BUCKET,
    prefix,
    clock: fixedClock('2025-06-01T12:00:00.000Z'),
    ...options,
  });
  return { store, prefix };
}

function input(overrides: Partial<ArtifactMetadataInput> = {}): ArtifactMetadataInput {
  return { tenantId: 'tenant-a', threadId: 'thread-1', sensitivity: 'internal', ...overrides };
}

const everything: SecurityContext = {
  requesterId: 'agent',
  tenantId: 'tenant-a',
  permissions: [ARTIFACT_PERMISSION_CONFIDENTIAL, ARTIFACT_PERMISSION_RESTRICTED],
};

describe('content objects', () => {
  it('are content-addressed per tenant and carry the metadata as object metadata', async () => {
    const { store, prefix } = newStore();
    const content = 'grep output: 3 matches in src/ — ünïcode 🌍';
    const tenantId = 'tenant/with slash é';
    const metadata = await store.put(
      content,
      input({
        tenantId,
        threadId: 'thread ü/1',
        ttlSeconds: 3600,
        encryptionKeyId: 'key-7',
        contentType: 'text/x-log',
      }),
    );
    const location = await store.locate(metadata.tenantId, metadata.artifactId);
    const sha = sha256Hex(content);
    expect(location).toEqual({ bucket: BUCKET, key: `${prefix}/${encodeURIComponent(tenantId)}/${sha}` });
    const head = await objects.headObject(location!);
    expect(head?.contentType).toBe('text/x-log');
    expect(head?.contentLength).toBe(Buffer.byteLength(content, 'utf8'));
    const read = (name: string) => objectMetadataValue(head?.metadata ?? {}, name);
    const names = OBJECT_METADATA_NAMES;
    expect({
      artifactId: read(names.artifactId),
      tenantId: read(names.tenantId),
      threadId: read(names.threadId),
      sensitivity: read(names.sensitivity),
      sha256: read(names.sha256),
      sizeBytes: read(names.sizeBytes),
      createdAt: read(names.createdAt),
      ttlSeconds: read(names.ttlSeconds),
      expiresAt: read(names.expiresAt),
      encryptionKeyId: read(names.encryptionKeyId),
    }).toEqual({
      artifactId: metadata.artifactId,
      tenantId,
      threadId: 'thread ü/1',
      sensitivity: 'internal',
      sha256: sha,
      sizeBytes: String(Buffer.byteLength(content, 'utf8')),
      createdAt: '2025-06-01T12:00:00.000Z',
      ttlSeconds: '3600',
      expiresAt: '2025-06-01T13:00:00.000Z',
      encryptionKeyId: 'key-7',
    });
  });

  it('keep hostile tenant ids inside one key segment', async () => {
    const { store, prefix } = newStore();
    for (const tenantId of ['..', '.', '../../etc', '_records', '_audit']) {
      const metadata = await store.put(`content of ${tenantId}`, input({ tenantId }));
      const location = await store.locate(metadata.tenantId, metadata.artifactId);
      const segments = location!.key.split('/');
      expect(segments.length).toBe(prefix.split('/').length + 2);
      expect(
        segments.slice(1, -1).every((segment) => !['.', '..', '_records', '_audit'].includes(segment)),
      ).toBe(true);
      const result = await store.retrieve(metadata.artifactId, { ...everything, tenantId });
      expect(result).toMatchObject({ status: 'ok', content: `content of ${tenantId}` });
    }
  });
});

describe('SSE-KMS', () => {
  it('asks for aws:kms with the configured key: artifact key, else sensitivity key, else store key', async () => {
    const recording = recordingClient(objects);
    const { store, prefix } = newStore({
      client: recording.client,
      encryptionKeyId: 'alias/default',
      encryptionKeyIds: { restricted: 'alias/restricted' },
    });
    await store.put('internal content', input());
    await store.put('restricted content', input({ sensitivity: 'restricted' }));
    await store.put(
      'own key content',
      input({ sensitivity: 'restricted', encryptionKeyId: 'arn:aws:kms:own' }),
    );
    const contentKeys = recording.puts
      .filter((request) => !request.key.startsWith(`${prefix}/_`))
      .map((request) => [
        objectMetadataValue(request.metadata ?? {}, OBJECT_METADATA_NAMES.sha256),
        request.kmsKeyId,
      ]);
    expect(contentKeys).toEqual([
      [sha256Hex('internal content'), 'alias/default'],
      [sha256Hex('restricted content'), 'alias/restricted'],
      [sha256Hex('own key content'), 'arn:aws:kms:own'],
    ]);
    const recordPuts = recording.puts.filter((request) => request.key.startsWith(`${prefix}/_records/`));
    expect(recordPuts.length).toBe(3);
    for (const request of recordPuts) expect(request.kmsKeyId).toBe('alias/default');
  });

  it('sends no SSE parameters when no key is configured', async () => {
    const recording = recordingClient(objects);
    const { store } = newStore({ client: recording.client });
    const metadata = await store.put('plain', input({ sensitivity: 'confidential' }));
    await store.retrieve(metadata.artifactId, everything);
    expect(recording.puts.length).toBe(3); // content, record, audit
    for (const request of recording.puts) expect(request.kmsKeyId).toBeUndefined();
  });

  it('puts ServerSideEncryption aws:kms, the key id and the tags on the wire', async () => {
    const wire = createAwsS3ObjectClient({ config: server.clientConfig() });
    const seen: Record<string, string>[] = [];
    wire.s3.middlewareStack.add(
      (next) => async (args) => {
        const request = args.request as { headers?: Record<string, string> };
        if (request.headers !== undefined) seen.push({ ...request.headers });
        return next(args);
      },
      { step: 'finalizeRequest', name: 'recordHeaders' },
    );
    try {
      await wire.putObject({
        bucket: BUCKET,
        key: `wire-${randomUUID()}`,
        body: new TextEncoder().encode('x'),
        kmsKeyId: 'alias/wire',
        tags: { [TTL_DAYS_TAG]: '7' },
      });
      await wire.putObject({
        bucket: BUCKET,
        key: `wire-${randomUUID()}`,
        body: new TextEncoder().encode('y'),
      });
    } finally {
      wire.destroy();
    }
    expect(seen[0]?.['x-amz-server-side-encryption']).toBe('aws:kms');
    expect(seen[0]?.['x-amz-server-side-encryption-aws-kms-key-id']).toBe('alias/wire');
    expect(seen[0]?.['x-amz-tagging']).toBe('compactor-ttl-days=7');
    expect(seen[1]?.['x-amz-server-side-encryption']).toBeUndefined();
    expect(seen[1]?.['x-amz-tagging']).toBeUndefined();
    expect(seen[1]?.['x-amz-server-side-encryption-aws-kms-key-id']).toBeUndefined();
  });
});

describe('expiry tags for bucket lifecycle rules', () => {
  it('tag content and record with the TTL in whole days, rounded up; untagged without a TTL', async () => {
    const recording = recordingClient(objects);
    const { store, prefix } = newStore({ client: recording.client });
    await store.put('a day and a bit', input({ ttlSeconds: 86_400 + 1 }));
    await store.put('one minute', input({ ttlSeconds: 60 }));
    await store.put('forever', input());
    const tagsOf = (key: string) => recording.puts.find((request) => request.key === key)?.tags;
    const days = recording.puts
      .filter((request) => !request.key.startsWith(`${prefix}/_`))
      .map((request) => request.tags?.[TTL_DAYS_TAG]);
    expect(days).toEqual(['2', '1', undefined]);
    for (const request of recording.puts.filter((put) => put.key.startsWith(`${prefix}/_records/`))) {
      const contentSha = JSON.parse(new TextDecoder().decode(request.body)).metadata.sha256 as string;
      const content = recording.puts.find((put) => put.key.endsWith(`/${contentSha}`));
      expect(request.tags).toEqual(tagsOf(content!.key));
    }
  });
});

describe('a bucket per sensitivity', () => {
  const buckets = { confidential: CONFIDENTIAL_BUCKET, restricted: RESTRICTED_BUCKET };

  it('stores content in its sensitivity’s bucket, records and audit in the default one', async () => {
    const { store, prefix } = newStore({ buckets });
    const confidential = await store.put('confidential text', input({ sensitivity: 'confidential' }));
    const internal = await store.put('internal text', input({ sensitivity: 'internal' }));
    expect((await store.locate(confidential.tenantId, confidential.artifactId))?.bucket).toBe(
      CONFIDENTIAL_BUCKET,
    );
    expect((await store.locate(internal.tenantId, internal.artifactId))?.bucket).toBe(BUCKET);
    const record = await objects.headObject({
      bucket: BUCKET,
      key: recordKey(prefix, confidential.tenantId, confidential.artifactId),
    });
    expect(record).not.toBeNull();
    expect(await store.retrieve(confidential.artifactId, everything)).toMatchObject({
      status: 'ok',
      content: 'confidential text',
    });
    expect((await store.listAudit('tenant-a', confidential.artifactId)).map((event) => event.action)).toEqual(
      ['read'],
    );
  });

  it('moves content to the stricter bucket when a later put raises the sensitivity, and deletes the old copy', async () => {
    const { store } = newStore({ buckets });
    const first = await store.put('escalating text', input({ sensitivity: 'internal' }));
    const before = await store.locate(first.tenantId, first.artifactId);
    expect(before?.bucket).toBe(BUCKET);
    const raised = await store.put('escalating text', input({ sensitivity: 'restricted' }));
    expect(raised.sensitivity).toBe('restricted');
    const after = await store.locate(first.tenantId, first.artifactId);
    expect(after).toEqual({ bucket: RESTRICTED_BUCKET, key: before?.key });
    expect(await objects.headObject(before!)).toBeNull();
    const head = await objects.headObject(after!);
    expect(objectMetadataValue(head?.metadata ?? {}, OBJECT_METADATA_NAMES.sensitivity)).toBe('restricted');
    expect(await store.retrieve(first.artifactId, everything)).toMatchObject({
      status: 'ok',
      content: 'escalating text',
    });
  });
});

describe('errors', () => {
  it('reports a missing bucket as a typed error that is not retryable', async () => {
    const { store } = newStore({ bucket: 'no-such-bucket' });
    for (const attempt of [
      () => store.put('x', input()),
      () => store.retrieve(`art_${'a'.repeat(64)}`, everything),
    ]) {
      let caught: unknown;
      try {
        await attempt();
      } catch (error) {
        caught = error;
      }
      expect(CompactorError.isInstance(caught)).toBe(true);
      expect((caught as CompactorError).isRetryable).toBe(false);
      expect((caught as CompactorError).message).toMatch(/no-such-bucket/);
      expect((caught as CompactorError).details).toMatchObject({ s3Error: 'NoSuchBucket' });
    }
  });

  it('reports a network failure as a retryable typed error', async () => {
    const closed = await startS3rver();
    await closed.stop();
    const unreachable = createAwsS3ObjectClient({ config: closed.clientConfig({ maxAttempts: 1 }) });
    try {
      const store = new S3ArtifactStore({ client: unreachable, bucket: BUCKET });
      let caught: unknown;
      try {
        await store.put('x', input());
      } catch (error) {
        caught = error;
      }
      expect(CompactorError.hasCode(caught, 'unavailable')).toBe(true);
      expect((caught as CompactorError).isRetryable).toBe(true);
    } finally {
      unreachable.destroy();
    }
  });

  it('rejects tenant and thread ids that are not well-formed Unicode', async () => {
    const { store } = newStore();
    for (const bad of [input({ tenantId: 'a\uD800b' }), input({ threadId: '\uDC00' })]) {
      let caught: unknown;
      try {
        await store.put('x', bad);
      } catch (error) {
        caught = error;
      }
      expect(CompactorError.hasCode(caught, 'validation')).toBe(true);
    }
  });

  it('refuses to trust a metadata record that is not one', async () => {
    const { store, prefix } = newStore();
    const metadata = await store.put('real', input());
    await objects.putObject({
      bucket: BUCKET,
      key: recordKey(prefix, metadata.tenantId, metadata.artifactId),
      body: new TextEncoder().encode('{"not":"a record"}'),
    });
    let caught: unknown;
    try {
      await store.retrieve(metadata.artifactId, everything);
    } catch (error) {
      caught = error;
    }
    expect(CompactorError.hasCode(caught, 'integrity')).toBe(true);
  });
});

describe('audit log', () => {
  it('keeps every one of many concurrent reads, in the owner’s log; another tenant finds nothing to read or audit', async () => {
    const { store } = newStore();
    const metadata = await store.put('popular', input());
    const readers = Array.from({ length: 20 }, (_, index) => ({
      ...everything,
      requesterId: `agent-${index}`,
    }));
    await Promise.all(readers.map((reader) => store.retrieve(metadata.artifactId, reader)));
    expect(
      await store.retrieve(metadata.artifactId, {
        ...everything,
        tenantId: 'tenant-b',
        requesterId: 'intruder',
      }),
    ).toEqual({ status: 'not_found' });
    const audit = await store.listAudit('tenant-a', metadata.artifactId);
    expect(audit.length).toBe(20);
    expect(new Set(audit.map((event) => event.requesterId))).toEqual(
      new Set(readers.map((reader) => reader.requesterId)),
    );
    expect(audit.every((event) => event.action === 'read')).toBe(true);
    expect(await store.listAudit('tenant-b')).toEqual([]);
  });
});
