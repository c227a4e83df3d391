import { fieldIssuesFrom, ValidationError } from '@compactor/core';
import { z } from 'zod';
import {
  type HeapCompactionSetting,
  heapCompactionEnvironment,
  heapCompactionSettingOf,
  WORKER_HEAP_COMPACTION,
} from './heap/heap-compaction.js';

/** The worker's own variables (the shared ones are the runtime's: see @compactor/runtime). */
const workerEnvironmentSchema = z.object({
  COMPACTOR_WORKER_METRICS_PORT: z.preprocess(
    (value) => (value === '' ? undefined : value),
    z
      .string()
      .regex(/^\d+$/, 'must be a port number')
      .transform(Number)
      .pipe(z.number().int().max(65_535, 'must be a port number'))
      .optional(),
  ),
  COMPACTOR_WORKER_METRICS_HOST: z.preprocess(
    (value) => (value === '' ? undefined : value),
    z.string().default('127.0.0.1'),
  ),
  ...heapCompactionEnvironment(WORKER_HEAP_COMPACTION),
});

/** The names of the variables the worker reads besides the runtime's. */
export const WORKER_ENVIRONMENT_VARIABLES = Object.keys(workerEnvironmentSchema.shape);

/** The worker's own settings. */
export interface WorkerConfig {
  /** Where `/metrics`, `/healthz` and `/readyz` listen; undefined = no listener. 0 = any free port. */
  metricsPort: number | undefined;
  metricsHost: string;
  /** How the process's V8 heap is compacted (ADR-0355, ADR-0395); applied by the entry before anything else. */
  heapCompaction: HeapCompactionSetting;
}

/**
 * Parse the worker's variables once, at start.
 *
 * @param environment - The variables to read (default: `process.env`).
 * @returns The settings.
 * @throws ValidationError listing every invalid variable.
 */
export function loadWorkerConfig(
  environment: Record<string, string | undefined> = process.env,
): WorkerConfig {
  const parsed = workerEnvironmentSchema.safeParse(environment);
  if (!parsed.success) {
    const issues = fieldIssuesFrom(parsed.error.issues);
    const listed = issues.map((issue) => `${issue.path} ${issue.message}`).join('; ');
    throw new ValidationError(`invalid worker configuration: ${listed}`, issues);
  }
  return {
    metricsPort: parsed.data.COMPACTOR_WORKER_METRICS_PORT,
    metricsHost: parsed.data.COMPACTOR_WORKER_METRICS_HOST,
    heapCompaction: heapCompactionSettingOf(parsed.data),
  };
}
