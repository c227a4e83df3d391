import { type CompactionCheckJob, fieldIssuesFrom, ValidationError } from '@compactor/core';
import { z } from 'zod';

/** Lone UTF-16 surrogates cannot be escaped into a queue key (encodeURIComponent throws on them). */
const wellFormedId = z
  .string()
  .min(1)
  .regex(/^(?:[^\uD800-\uDFFF]|[\uD800-\uDBFF][\uDC00-\uDFFF])*$/, 'must be well-formed Unicode');

/**
 * The job contract on the wire: ids and a version, never conversation content. Strict, so a
 * producer that starts sending content (or anything unknown) is caught at the boundary.
 */
export const compactionCheckJobSchema = z
  .object({
    tenantId: wellFormedId,
    threadId: wellFormedId,
    version: z.number().int().min(0),
    reason: z.enum(['append', 'manual', 'sweeper']),
    manual: z
      .object({
        instructions: z.string().max(4_000).optional(),
        force: z.boolean().optional(),
      })
      .strict()
      .optional(),
  })
  .strict()
  .refine((job) => job.manual === undefined || job.reason === 'manual', {
    message: 'manual options are only allowed when reason is "manual"',
    path: ['manual'],
  });

/**
 * Parse an untrusted payload; a payload that fails is a permanent failure, never retried.
 *
 * @param data - The payload as read from the queue.
 * @returns The job.
 * @throws ValidationError when the payload does not match {@link compactionCheckJobSchema}.
 */
export function parseCompactionCheckJob(data: unknown): CompactionCheckJob {
  const parsed = compactionCheckJobSchema.safeParse(data);
  if (parsed.success) return parsed.data;
  throw new ValidationError('invalid compaction-check job payload', fieldIssuesFrom(parsed.error.issues));
}
