import { z } from 'zod';

/**
 * How safe a tool result is to take out of the prompt (ADR-0007).
 * - ephemeral: safe to clear entirely (listings, debug output)
 * - anchoring: keep a placeholder with its key fields (order ids, decisions)
 * - replayable: clear only while determinism metadata proves the source unchanged
 * - non_replayable: never clear; externalize or keep (paid, rate-limited, time-sensitive)
 */
export const toolDurabilitySchema = z.enum(['ephemeral', 'anchoring', 'replayable', 'non_replayable']);
/** One of the four durability classes above. */
export type ToolDurability = z.infer<typeof toolDurabilitySchema>;

export const determinismMetadataSchema = z.object({
  contentHash: z.string().optional(),
  etag: z.string().optional(),
  mtime: z.number().optional(),
  version: z.string().optional(),
});
/** Evidence of a tool result's source version: content hash, etag, mtime or version. */
export type DeterminismMetadata = z.infer<typeof determinismMetadataSchema>;

/**
 * Has the source drifted since `captured` was taken? Compares the strongest evidence both sides
 * have (content hash, then etag, then mtime, then version). Anything unverifiable counts as
 * changed: clearing a replayable result is only safe when we can prove it could be replayed.
 *
 * @param captured - The metadata recorded with the result.
 * @param current - The source's metadata now.
 * @returns False only when the strongest shared evidence matches.
 */
export function hasChanged(
  captured: DeterminismMetadata | undefined,
  current: DeterminismMetadata | undefined,
): boolean {
  if (!captured || !current) return true;
  if (captured.contentHash !== undefined && current.contentHash !== undefined) {
    return captured.contentHash !== current.contentHash;
  }
  if (captured.etag !== undefined && current.etag !== undefined) return captured.etag !== current.etag;
  if (captured.mtime !== undefined && current.mtime !== undefined) return captured.mtime !== current.mtime;
  if (captured.version !== undefined && current.version !== undefined) {
    return captured.version !== current.version;
  }
  return true;
}
