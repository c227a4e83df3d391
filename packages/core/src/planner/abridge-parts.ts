import { abridgedMessage } from '../plan/as-rendered.js';
import type { AbridgedPart, AbridgeRecord } from '../plan/records.js';
import { clippedPasteText, type MediaStandInFields, mediaStandInText } from '../plan/stand-in-texts.js';
import type { DocumentPart, ImagePart } from '../schemas/content.js';
import { clipPastedInPlace } from '../thread/pasted.js';
import type { ThreadMessage } from '../thread/thread.js';

/*
 * What the abridge rung (ADR-0265) would replace in one message, written once for the rung and for
 * `keptUserMessageIds`, which sizes a user message by what it would cost abridged (ADR-0266).
 */

/** Metadata keys an importer leaves a caption or alt text under (LoCoMo: `blipCaption`). */
const CAPTION_KEYS = ['caption', 'altText', 'alt', 'blipCaption'] as const;

/** What an abridgement of one message would replace, before any artifact is stored. */
export interface AbridgeDraft {
  /** The media parts replaced, with their stand-ins. */
  readonly media: readonly AbridgedPart[];
  /** Text parts whose pasted blocks would be clipped: index and the clipped text (no footer yet). */
  readonly pastes: readonly { readonly index: number; readonly clipped: string }[];
}

/**
 * The media and pastes of a message the abridge rung would replace: every image and document, and
 * (in a user message) every text part with a pasted block longer than `2 × edgeLines + 1` lines.
 *
 * @param message - A user or assistant message.
 * @param edgeLines - Lines a clipped paste keeps from each end.
 * @returns The draft, or undefined when nothing would be replaced.
 */
export function draftAbridgement(message: ThreadMessage, edgeLines: number): AbridgeDraft | undefined {
  // A pure function of a log message (never edited in place) and the edge: every analyze of every
  // planning run, the kept user words and the emergency fit ask again, and it scans each pasted text.
  const known = drafts.get(message);
  if (known && known.edgeLines === edgeLines) return known.draft;
  const draft = draftOf(message, edgeLines);
  drafts.set(message, { edgeLines, draft });
  return draft;
}

/** Drafts by message object; a draft is shared, so callers never change it. */
const drafts = new WeakMap<ThreadMessage, { edgeLines: number; draft: AbridgeDraft | undefined }>();

function draftOf(message: ThreadMessage, edgeLines: number): AbridgeDraft | undefined {
  if (message.role !== 'user' && message.role !== 'assistant') return undefined;
  const mediaCount = message.content.filter(
    (part) => part.type === 'image' || part.type === 'document',
  ).length;
  // A caption in the message's metadata belongs to its one picture (an importer's convention).
  const caption = mediaCount === 1 ? metadataCaption(message) : undefined;
  const media: AbridgedPart[] = [];
  const pastes: { index: number; clipped: string }[] = [];
  message.content.forEach((part, index) => {
    if (part.type === 'image' || part.type === 'document') {
      media.push({ index, reason: 'media', text: mediaStandInText(mediaFields(part, caption)) });
    } else if (part.type === 'text' && message.role === 'user') {
      const clipped = clipPastedInPlace(part.text, edgeLines);
      if (clipped !== undefined) pastes.push({ index, clipped });
    }
  });
  return media.length + pastes.length > 0 ? { media, pastes } : undefined;
}

/**
 * The record a draft becomes, with the artifact holding the full text when one was stored.
 *
 * @param message - The message.
 * @param draft - Its draft.
 * @param stored - The artifact, its hint and sensitivity, when the full text was stored.
 * @returns The abridge record (parts in content order).
 */
export function abridgeRecordOf(
  message: Pick<ThreadMessage, 'id' | 'turn'>,
  draft: AbridgeDraft,
  stored?: Pick<AbridgeRecord, 'artifactId' | 'rehydrateHint' | 'sensitivity'>,
): AbridgeRecord {
  const pastes: AbridgedPart[] = draft.pastes.map(({ index, clipped }) => ({
    index,
    reason: 'paste',
    text: clippedPasteText(clipped, stored?.artifactId),
  }));
  return {
    kind: 'abridge',
    span: { messageIds: [message.id], firstTurn: message.turn, lastTurn: message.turn },
    parts: [...draft.media, ...pastes].sort((left, right) => left.index - right.index),
    ...stored,
  };
}

/**
 * A message's tokens once abridged (for sizing before anything is stored).
 *
 * @param message - The message.
 * @param draft - Its draft.
 * @param countMessage - Tokens of a message as rendered.
 * @returns The tokens of the abridged message.
 */
export function abridgedTokens(
  message: ThreadMessage,
  draft: AbridgeDraft,
  countMessage: (message: ThreadMessage) => number,
): number {
  return countMessage(abridgedMessage(message, abridgeRecordOf(message, draft)));
}

function metadataCaption(message: ThreadMessage): string | undefined {
  for (const key of CAPTION_KEYS) {
    const value = message.metadata?.[key];
    if (typeof value === 'string' && value.trim() !== '') return value.trim();
  }
  return undefined;
}

function mediaFields(part: ImagePart | DocumentPart, caption: string | undefined): MediaStandInFields {
  // A URL names the file already (it is the reference); a document's title is the only other name.
  const name = part.type === 'document' && part.title ? part.title : undefined;
  return {
    kind: part.type,
    mediaType: part.mediaType,
    caption,
    name,
    reference: referenceOf(part),
  };
}

function referenceOf(part: ImagePart | DocumentPart): string {
  switch (part.source.kind) {
    case 'url':
      return part.source.url.startsWith('data:')
        ? 'inline data, kept in the conversation log'
        : part.source.url;
    case 'artifact':
      return `artifact:${part.source.artifactId}`;
    case 'base64':
      // Base64 is never shown as text (ADR-0265): the original stays in the log.
      return `inline data (${Math.ceil((part.source.data.length * 3) / 4 / 1024)} KB), kept in the conversation log`;
  }
}
