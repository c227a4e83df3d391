import { fieldIssuesFrom, ValidationError } from '@compactor/core';
import {
  type HeapCompactionSetting,
  heapCompactionEnvironment,
  heapCompactionSettingOf,
  INGEST_HEAP_COMPACTION,
} from '@compactor/worker';
import { z } from 'zod';
import { type ApiKeyGrant, parseApiKeys } from '../auth/api-keys.js';
import { defaultIngestTimeouts, type IngestTimeouts } from '../dependencies.js';

const environmentSchema = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65_535).default(8080),
    HOST: z.string().min(1).default('127.0.0.1'),
    COMPACTOR_API_KEYS: z.string().min(1, 'set COMPACTOR_API_KEYS="key1=tenantA,key2=tenantB"'),
    COMPACTOR_MAX_BODY_BYTES: z.coerce
      .number()
      .int()
      .positive()
      .default(5 * 1024 * 1024),
    COMPACTOR_MAX_EVENTS_PER_BATCH: z.coerce.number().int().positive().default(500),
    COMPACTOR_REQUEST_TIMEOUT_MS: milliseconds(defaultIngestTimeouts.requestMs),
    COMPACTOR_HEADERS_TIMEOUT_MS: milliseconds(defaultIngestTimeouts.headersMs),
    COMPACTOR_IDLE_TIMEOUT_MS: milliseconds(defaultIngestTimeouts.idleMs),
    COMPACTOR_KEEP_ALIVE_TIMEOUT_MS: milliseconds(defaultIngestTimeouts.keepAliveMs),
    COMPACTOR_SLOW_REQUEST_MS: milliseconds(defaultIngestTimeouts.slowRequestMs),
    ...heapCompactionEnvironment(INGEST_HEAP_COMPACTION),
  })
  .refine((values) => values.COMPACTOR_HEADERS_TIMEOUT_MS <= values.COMPACTOR_REQUEST_TIMEOUT_MS, {
    path: ['COMPACTOR_HEADERS_TIMEOUT_MS'],
    message: 'may not exceed COMPACTOR_REQUEST_TIMEOUT_MS',
  });

function milliseconds(defaultValue: number) {
  return z.coerce.number().int().positive().max(3_600_000).default(defaultValue);
}

/** The ingest's own settings. */
export interface IngestConfig {
  port: number;
  host: string;
  apiKeys: Map<string, ApiKeyGrant>;
  limits: { maxBodyBytes: number; maxEventsPerBatch: number };
  timeouts: IngestTimeouts;
  /** How the process's V8 heap is compacted (ADR-0355, ADR-0395); applied by the entry before anything else. */
  heapCompaction: HeapCompactionSetting;
}

/**
 * The ingest's own settings (listen address, API keys, limits), read once from the environment; any
 * problem is a ValidationError naming the variable. Stores, queue, summarizer, data directory, log
 * level and debounce are the runtime's (`loadRuntimeConfig` in @compactor/runtime).
 *
 * @param environment - The variables to read (default: `process.env`).
 * @returns The settings.
 * @throws ValidationError naming each invalid variable, or when no API key is configured.
 */
export function loadIngestConfig(environment: NodeJS.ProcessEnv = process.env): IngestConfig {
  const parsed = environmentSchema.safeParse(environment);
  if (!parsed.success) {
    throw new ValidationError('invalid ingest configuration', fieldIssuesFrom(parsed.error.issues));
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
    timeouts: {
      ...defaultIngestTimeouts,
      requestMs: values.COMPACTOR_REQUEST_TIMEOUT_MS,
      headersMs: values.COMPACTOR_HEADERS_TIMEOUT_MS,
      idleMs: values.COMPACTOR_IDLE_TIMEOUT_MS,
      keepAliveMs: values.COMPACTOR_KEEP_ALIVE_TIMEOUT_MS,
      slowRequestMs: values.COMPACTOR_SLOW_REQUEST_MS,
    },
    heapCompaction: heapCompactionSettingOf(values),
  };
}
