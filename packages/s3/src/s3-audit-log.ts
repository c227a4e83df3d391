import type { ArtifactAuditEvent } from '@compactor/core';
import { auditKey, auditKeyOrder, auditPrefix } from './object-keys.js';
import type { S3ObjectClient } from './s3-object-client.js';

/**
 * Where the artifact store records reads and refusals. The default keeps them in S3; inject
 * another (a database, a log pipeline) with the `auditLog` option.
 */
export interface ArtifactAuditLog {
  record(event: ArtifactAuditEvent): Promise<void>;
  /** The tenant's events (of one artifact, or all), oldest first. */
  list(tenantId: string, artifactId?: string): Promise<ArtifactAuditEvent[]>;
}

/** Where the S3 audit log writes. */
export interface S3AuditLogOptions {
  client: S3ObjectClient;
  bucket: string;
  /** The store's key prefix; events go under `<prefix>/_audit/`. */
  prefix: string;
  /** SSE-KMS key for the event objects. */
  kmsKeyId?: string;
  /** Parallel GETs when listing. @defaultValue 8 */
  readConcurrency?: number;
}

/**
 * One small JSON object per audit event under `<prefix>/_audit/<tenant>/<artifactId>/`. S3 has no
 * append, and a shared JSON-lines object would lose events to concurrent read-modify-writes; one
 * object per event never does. Listing an artifact's events is one LIST plus a GET per event;
 * listing a whole tenant lists every artifact's events (an operator's query, not a hot path).
 */
export class S3AuditLog implements ArtifactAuditLog {
  /** @param options - Client, bucket, prefix, key and read concurrency. */
  constructor(private readonly options: S3AuditLogOptions) {}

  async record(event: ArtifactAuditEvent): Promise<void> {
    await this.options.client.putObject({
      bucket: this.options.bucket,
      key: auditKey(this.options.prefix, event),
      body: new TextEncoder().encode(JSON.stringify(event)),
      contentType: 'application/json',
      kmsKeyId: this.options.kmsKeyId,
    });
  }

  async list(tenantId: string, artifactId?: string): Promise<ArtifactAuditEvent[]> {
    const keys = await this.listKeys(auditPrefix(this.options.prefix, tenantId, artifactId));
    keys.sort((a, b) => compare(auditKeyOrder(a), auditKeyOrder(b)));
    const events: (ArtifactAuditEvent | null)[] = new Array(keys.length).fill(null);
    let next = 0;
    const worker = async () => {
      while (next < keys.length) {
        const index = next;
        next += 1;
        const object = await this.options.client.getObject({
          bucket: this.options.bucket,
          key: keys[index]!,
        });
        if (object !== null)
          events[index] = JSON.parse(new TextDecoder().decode(object.body)) as ArtifactAuditEvent;
      }
    };
    const workers = Math.min(this.options.readConcurrency ?? 8, keys.length);
    await Promise.all(Array.from({ length: workers }, worker));
    return events.filter((event): event is ArtifactAuditEvent => event !== null);
  }

  private async listKeys(prefix: string): Promise<string[]> {
    const keys: string[] = [];
    let continuationToken: string | undefined;
    do {
      const page = await this.options.client.listObjects({
        bucket: this.options.bucket,
        prefix,
        ...(continuationToken === undefined ? {} : { continuationToken }),
      });
      keys.push(...page.keys.filter((key) => key.endsWith('.json')));
      continuationToken = page.nextContinuationToken;
    } while (continuationToken !== undefined);
    return keys;
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
