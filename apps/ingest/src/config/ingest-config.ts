import { ValidationError } from '@compactor/core';
import { z } from 'zod';
import { type ApiKeyGrant, parseApiKeys } from '../auth/api-keys.js';
import { toFieldIssues } from '../http/parse-input.js';

const environmentSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65_535).default(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  COMPACTOR_API_KEYS: z.string().min(1, 'set COMPACTOR_API_KEYS="key1=tenantA,key2=tenantB"'),
  COMPACTOR_DATA_DIR: z.string().min(1).default('./.compactor'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  COMPACTOR_MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(5 * 1024 * 1024),
  COMPACTOR_MAX_EVENTS_PER_BATCH: z.coerce.number().int().positive().default(500),
  COMPACTOR_COMPACTION_DEBOUNCE_MS: z.coerce.number().int().min(0).default(1_000),
  COMPACTOR_SWEEP_INTERVAL_MS: z.coerce.number().int().positive().default(30_000),
});

export interface IngestConfig {
  port: number;
  host: string;
  apiKeys: Map<string, ApiKeyGrant>;
  dataDir: string;
  logLevel: z.infer<typeof environmentSchema>['LOG_LEVEL'];
  limits: { maxBodyBytes: number; maxEventsPerBatch: number };
  compactionDebounceMs: number;
  sweepIntervalMs: number;
}

/** Read the configuration once, from the environment; any problem is a ValidationError naming the variable. */
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
    dataDir: values.COMPACTOR_DATA_DIR,
    logLevel: values.LOG_LEVEL,
    limits: {
      maxBodyBytes: values.COMPACTOR_MAX_BODY_BYTES,
      maxEventsPerBatch: values.COMPACTOR_MAX_EVENTS_PER_BATCH,
    },
    compactionDebounceMs: values.COMPACTOR_COMPACTION_DEBOUNCE_MS,
    sweepIntervalMs: values.COMPACTOR_SWEEP_INTERVAL_MS,
  };
}
