import type { ContentPart, EventInput } from '@compactor/core';

/**
 * Images-as-captions mode: every image part becomes a text part `[image: <caption>]`, from the
 * message's `metadata.blipCaption` (LoCoMo ships BLIP captions) or `[image]` without one. LoCoMo's
 * URL images are ~1,445 tokens each and 74–85% of each transcript; as captions, budgets stated in
 * text tokens compress the words, not the pictures.
 */
export function imagesAsCaptions(events: readonly EventInput[]): EventInput[] {
  return events.map((event) => {
    if (event.type !== 'message.appended') return event;
    const { message } = event;
    if (!message.content.some((part) => part.type === 'image')) return event;
    const caption =
      typeof message.metadata?.blipCaption === 'string' ? message.metadata.blipCaption : undefined;
    const content: ContentPart[] = message.content.map((part) =>
      part.type === 'image' ? { type: 'text', text: caption ? `[image: ${caption}]` : '[image]' } : part,
    );
    return { ...event, message: { ...message, content } };
  });
}
