import type { ImagePart } from '@compactor/core';
import type { DraftToolResult } from './draft.js';
import type { Working } from './finalize-types.js';
import type { IdAllocator } from './ids.js';

/**
 * A \`tool\` message carries only its envelope, so images a tool returned travel in a synthetic
 * user message after the run of results.
 */
export function attachToolImages(messages: Working[], ids: IdAllocator): Working[] {
  const output: Working[] = [];
  let images: ImagePart[] = [];
  let callIds: string[] = [];
  /** The first result of the run that returned images: the attachment is named after it. */
  let owner: Working | undefined;
  const flush = () => {
    if (owner) {
      output.push({
        id: ids.allocate(`${owner.id}-images`),
        role: 'user',
        synthetic: true,
        ...(owner.subagentId === undefined ? {} : { subagentId: owner.subagentId }),
        ...(owner.createdAt === undefined ? {} : { createdAt: owner.createdAt }),
        metadata: { imagesFromToolCallIds: callIds },
        content: images,
      });
    }
    images = [];
    callIds = [];
    owner = undefined;
  };
  for (const message of messages) {
    if (message.role !== 'tool') flush();
    output.push(message);
    if (message.role !== 'tool') continue;
    const result = message.content[0] as DraftToolResult;
    if (result.images && result.images.length > 0) {
      owner ??= message;
      images.push(...result.images);
      callIds.push(result.toolCallId);
    }
  }
  flush();
  return output;
}
