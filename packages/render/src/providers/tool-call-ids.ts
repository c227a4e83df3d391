/**
 * Tool call ids as providers accept them. Anthropic requires `^[a-zA-Z0-9_-]+$` and OpenAI Chat
 * rejects ids longer than 40 characters; ids that already satisfy both pass through unchanged,
 * others get a readable stem plus a hash of the original, so the mapping is deterministic and
 * distinct ids stay distinct.
 */
const PROVIDER_SAFE_ID = /^[A-Za-z0-9_-]{1,40}$/;

/**
 * The id a tool call is sent under.
 *
 * @param key - The call's id in the log.
 * @returns `key` itself when every provider accepts it, else a stem plus two FNV-1a hashes of it.
 */
export function providerToolCallId(key: string): string {
  if (PROVIDER_SAFE_ID.test(key)) return key;
  const stem = key.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 23);
  return `${stem}_${fnv1a32(key, 0x811c9dc5)}${fnv1a32(key, 0x01000193)}`;
}

function fnv1a32(text: string, seed: number): string {
  let hash = seed >>> 0;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}
