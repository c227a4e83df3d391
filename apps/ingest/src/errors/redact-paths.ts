/**
 * An absolute filesystem path (two or more segments): `/var/lib/compactor/t/x.log`. URL paths in
 * our own messages are never put through this; store messages name files, which a client must not see.
 */
const ABSOLUTE_PATH = /(?<![\w.~-])\/(?:[^\s/'"`,;:()[\]{}<>]+\/)+[^\s/'"`,;:()[\]{}<>]*/g;

/** `message` with every absolute filesystem path replaced by `<path>` (ADR-0048). */
export function withoutFilePaths(message: string): string {
  return message.replace(ABSOLUTE_PATH, '<path>');
}
