import { fieldIssuesFrom, ValidationError } from '@compactor/core';
import type { RuntimeConfig } from './runtime-config.js';
import { runtimeConfigSchema } from './runtime-config-schema.js';

/**
 * Parse the configuration once, at start; nothing else reads the environment. Every problem is
 * reported at once, each naming its variable: `ValidationError` with one issue per variable and
 * a message listing them, e.g. `invalid runtime configuration: REDIS_URL is required when
 * COMPACTOR_QUEUE=bullmq`.
 *
 * @param environment - The variables to read (default: `process.env`).
 * @returns The configuration.
 * @throws ValidationError listing every invalid or missing variable.
 */
export function loadRuntimeConfig(
  environment: Record<string, string | undefined> = process.env,
): RuntimeConfig {
  const parsed = runtimeConfigSchema.safeParse(environment);
  if (parsed.success) return parsed.data;
  const issues = fieldIssuesFrom(parsed.error.issues);
  const listed = issues.map((issue) => `${issue.path} ${issue.message}`).join('; ');
  throw new ValidationError(`invalid runtime configuration: ${listed}`, issues);
}
