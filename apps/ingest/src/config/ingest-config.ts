import { ValidationError } from '@compactor/core';
import { z } from 'zod';
import { type ApiKeyGrant, parseApiKeys } from '../auth/api-keys.js';
import { toFieldIssues } from '../http/parse-input.js';

const environmentSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65_535).default(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  COMPACTOR_API_KEYS: z.string().min(1, 'set COMPACTOR_API_KEYS="key1=tenantA,key2=tenantB"'),
  COMPACTOR_MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(5 * 1024 * 1024),
  COMPACTOR_MAX_EVENTS_PER_BATCH: z.coerce.number().int().positive().default(500),
});

export interface IngestConfig {
  port: number;
  host: string;
  apiKeys: Map<string, ApiKeyGrant>;
  limits: { maxBodyBytes: number; maxEventsPerBatch: number };
}

/**
 * The ingest's own settings (listen address, API keys, limits), read once from the environment; any
 * problem is a ValidationError naming the variable. Stores, queue, summarizer, data directory, log
 * level and debounce are the runtime's (`loadRuntimeConfig` in @compactor/runtime).
 */
export function loadIngestConfig(environment: NodeJS.ProcessEnv = process.env): IngestConfig {
  const parsed = environmentSchema.safeParse(environment);
  if (!parsed.success) {
    throw new ValidationError('invalid ingest configuration', toFieldIssues(parsed.error.issues));
  }
  const values = parsed.data;
  const apiKeys = parseApiKeys(values.COMPACTOR_API_KEYS);
  if (apiKeys.size === 0) {
    throw new ValidationError('invalid ingest configuration', [
      { path: 'COMPACTOR_API_KEYS', message: 'no key configured' },
    ]);
  }
  return {
    port: values.PORT,
    host: values.HOST,
    apiKeys,
    limits: {
      maxBodyBytes: values.COMPACTOR_MAX_BODY_BYTES,
      maxEventsPerBatch: values.COMPACTOR_MAX_EVENTS_PER_BATCH,
    },
  };
}
