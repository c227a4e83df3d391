import type { ArtifactMetadata } from '@compactor/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  bearer,
  KEY_A,
  KEY_A_CONFIDENTIAL,
  KEY_B,
  startTestIngest,
  TENANT_A,
  type TestIngest,
} from './support.js';

let ingest: TestIngest;
let internal: ArtifactMetadata;
let confidential: ArtifactMetadata;
beforeEach(async () => {
  ingest = await startTestIngest();
  internal = await ingest.stores.artifacts.put('the full build log', {
    tenantId: TENANT_A,
    threadId: 'thread-1',
    sensitivity: 'internal',
  });
  confidential = await ingest.stores.artifacts.put('customer records', {
    tenantId: TENANT_A,
    threadId: 'thread-1',
    sensitivity: 'confidential',
  });
});
afterEach(async () => {
  await ingest.cleanup();
});

function read(id: string, key: string) {
  return ingest.app.inject({ method: 'GET', url: `/v1/artifacts/${id}`, headers: bearer(key) });
}

describe('GET /v1/artifacts/:id', () => {
  it("returns the content and metadata of the caller's own artifact", async () => {
    const response = await read(internal.artifactId, KEY_A);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      artifactId: internal.artifactId,
      content: 'the full build log',
      metadata: JSON.parse(JSON.stringify(internal)),
    });
  });

  it("answers 404 for another tenant's artifact, exactly as for an unknown one, and writes no audit record", async () => {
    const foreign = await read(internal.artifactId, KEY_B);
    const unknown = await read(`art_${'a'.repeat(64)}`, KEY_B);
    expect(foreign.statusCode).toBe(404);
    expect(unknown.statusCode).toBe(404);
    expect(foreign.json().error.code).toBe(unknown.json().error.code);
    expect(foreign.body).not.toContain('build log');
    // Word for word the same answer, apart from the id asked about.
    expect(foreign.body.replaceAll(internal.artifactId, '<id>')).toBe(
      unknown.body.replaceAll(`art_${'a'.repeat(64)}`, '<id>'),
    );
    // Looked up under the caller's tenant: nothing to refuse, so nothing grows tenant A's audit log.
    expect(await ingest.stores.artifacts.listAudit(TENANT_A, internal.artifactId)).toEqual([]);
  });

  it('answers 403 for a confidential artifact without the permission, and 200 with it', async () => {
    const denied = await read(confidential.artifactId, KEY_A);
    expect(denied.statusCode).toBe(403);
    expect(denied.json().error).toMatchObject({
      code: 'access_denied',
      details: { sensitivity: 'confidential' },
    });
    expect(denied.body).not.toContain('customer records');
    const allowed = await read(confidential.artifactId, KEY_A_CONFIDENTIAL);
    expect(allowed.statusCode).toBe(200);
    expect(allowed.json().content).toBe('customer records');
    const audit = await ingest.stores.artifacts.listAudit(TENANT_A, confidential.artifactId);
    expect(audit.map((event) => event.action)).toEqual(['denied', 'read']);
    // Audits name the key by a hash, never the key itself.
    expect(audit[0]!.requesterId).toMatch(/^key-[0-9a-f]{16}$/);
    expect(audit[0]!.requesterId).not.toBe(audit[1]!.requesterId);
    expect(JSON.stringify(audit)).not.toContain(KEY_A);
  });

  it('answers 400 for a malformed id', async () => {
    const response = await read('not-an-artifact', KEY_A);
    expect(response.statusCode).toBe(400);
    expect(response.json().error.issues[0].path).toBe('id');
  });
});
