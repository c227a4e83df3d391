import { abridgedMessage } from '../plan/as-rendered.js';
import type { AbridgedMedia, AbridgedPart, AbridgeRecord } from '../plan/records.js';
import {
  clippedPasteText,
  type MediaStandInFields,
  mediaStandInDescriptions,
  mediaStandInText,
} from '../plan/stand-in-texts.js';
import { sensitivityNeedsPermission } from '../ports/artifact-rules.js';
import { type DocumentPart, type ImagePart, inlineMediaData } from '../schemas/content.js';
import type { SummaryArtifact } from '../summary/structured-summary.js';
import { clipPastedInPlace } from '../thread/pasted.js';
import type { ThreadMessage } from '../thread/thread.js';

/*
 * What the abridge rung (ADR-0265) would replace in one message, written once for the rung and for
 * `keptUserMessageIds`, which sizes a user message by what it would cost abridged (ADR-0266).
 */

/** Metadata keys an importer leaves a caption or alt text under (LoCoMo: `blipCaption`). */
const CAPTION_KEYS = ['caption', 'altText', 'alt', 'blipCaption'] as const;

/** One replaced medium as drafted: the part, and what its stand-in knows of it. */
export interface DraftedMedium {
  part: ImagePart | DocumentPart;
  fields: MediaStandInFields;
}

/** One part a draft replaces, with the media it drafted. */
export type DraftedPart = AbridgedPart & { readonly drafted: readonly DraftedMedium[] };

/** What an abridgement of one message would replace, before any artifact is stored. */
export interface AbridgeDraft {
  /** The media parts replaced (and tool results whose media are, ADR-0311), with their stand-ins. */
  readonly media: readonly DraftedPart[];
  /** Text parts whose pasted blocks would be clipped: index and the clipped text (no footer yet). */
  readonly pastes: readonly { readonly index: number; readonly clipped: string }[];
}

/** Where a stored medium went: its artifact and sensitivity (ADR-0310). */
export interface StoredMedium {
  artifactId: string;
  sensitivity: AbridgedMedia['sensitivity'];
}

/**
 * The media and pastes of a message the abridge rung would replace: every image and document, and
 * (in a user message) every text part with a pasted block longer than `2 × edgeLines + 1` lines, and
 * (in a tool message) every result's images and documents, the result kept (ADR-0311).
 *
 * @param message - A user, assistant or tool message.
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
  if (message.role === 'tool') return draftResultMedia(message);
  if (message.role !== 'user' && message.role !== 'assistant') return undefined;
  const mediaCount = message.content.filter(
    (part) => part.type === 'image' || part.type === 'document',
  ).length;
  // A caption in the message's metadata belongs to its one picture (an importer's convention).
  const caption = mediaCount === 1 ? metadataCaption(message) : undefined;
  const media: DraftedPart[] = [];
  const pastes: { index: number; clipped: string }[] = [];
  message.content.forEach((part, index) => {
    if (part.type === 'image' || part.type === 'document') {
      const drafted = [{ part, fields: mediaFields(part, caption) }];
      media.push({ index, reason: 'media', text: mediaStandInText(drafted[0]!.fields), drafted });
    } else if (part.type === 'text' && message.role === 'user') {
      const clipped = clipPastedInPlace(part.text, edgeLines);
      if (clipped !== undefined) pastes.push({ index, clipped });
    }
  });
  return media.length + pastes.length > 0 ? { media, pastes } : undefined;
}

/** A tool message's results that carry media: each result's media by their stand-ins (ADR-0311). */
function draftResultMedia(message: ThreadMessage): AbridgeDraft | undefined {
  const media: DraftedPart[] = [];
  message.content.forEach((part, index) => {
    if (part.type !== 'tool_result' || !part.media || part.media.length === 0) return;
    const drafted = part.media.map((medium) => ({ part: medium, fields: mediaFields(medium, undefined) }));
    media.push({ index, reason: 'result-media', text: resultMediaText(drafted, new Map()), drafted });
  });
  return media.length > 0 ? { media, pastes: [] } : undefined;
}

function resultMediaText(
  drafted: readonly DraftedMedium[],
  stored: ReadonlyMap<object, StoredMedium>,
): string {
  return drafted.map((medium) => mediaStandInText(storedFields(medium, stored))).join('\n');
}

/** A medium's stand-in fields once its data is in the store: the artifact is its reference and read-back id. */
function storedFields(medium: DraftedMedium, stored: ReadonlyMap<object, StoredMedium>): MediaStandInFields {
  const artifact = stored.get(medium.part);
  if (!artifact) return medium.fields;
  return { ...medium.fields, reference: `artifact:${artifact.artifactId}`, readBack: artifact.artifactId };
}

/** Where a replaced medium can be read back as itself (ADR-0310): its artifact or URL; none for data kept only in the log. */
function readBackOf(
  medium: DraftedMedium,
  stored: ReadonlyMap<object, StoredMedium>,
): AbridgedMedia | undefined {
  const { part } = medium;
  const base = { kind: part.type, mediaType: part.mediaType };
  const artifact = stored.get(part);
  if (artifact) return { ...base, artifactId: artifact.artifactId, sensitivity: artifact.sensitivity };
  if (part.source.kind === 'artifact') return { ...base, artifactId: part.source.artifactId };
  if (part.source.kind === 'url' && !inlineMediaData(part.source)) return { ...base, url: part.source.url };
  return undefined;
}

/**
 * The inline media of a draft (base64, or a `data:` URL), which the rung keeps as artifacts so
 * read_artifact can give them back as images (ADR-0310, ADR-0330).
 *
 * @param draft - The draft.
 * @returns Each inline image or document, in order.
 */
export function inlineMedia(draft: AbridgeDraft): (ImagePart | DocumentPart)[] {
  return draft.media.flatMap((part) =>
    part.drafted.flatMap((medium) => (inlineMediaData(medium.part.source) ? [medium.part] : [])),
  );
}

/**
 * The record a draft becomes, with the artifact holding the full text when one was stored, and the
 * artifacts holding its inline media when they were.
 *
 * @param message - The message.
 * @param draft - Its draft.
 * @param stored - The artifact, its hint and sensitivity, when the full text was stored.
 * @param storedMedia - Per inline medium (the part object), the artifact holding its data.
 * @returns The abridge record (parts in content order).
 */
export function abridgeRecordOf(
  message: Pick<ThreadMessage, 'id' | 'turn'>,
  draft: AbridgeDraft,
  stored?: Pick<AbridgeRecord, 'artifactId' | 'rehydrateHint' | 'sensitivity'>,
  storedMedia: ReadonlyMap<object, StoredMedium> = new Map(),
): AbridgeRecord {
  const pastes: AbridgedPart[] = draft.pastes.map(({ index, clipped }) => ({
    index,
    reason: 'paste',
    text: clippedPasteText(clipped, stored?.artifactId),
  }));
  const media: AbridgedPart[] = draft.media.map(({ index, reason, drafted }) => {
    const readBack = drafted.flatMap((medium) => readBackOf(medium, storedMedia) ?? []);
    return {
      index,
      reason,
      text: resultMediaText(drafted, storedMedia),
      ...(readBack.length > 0 ? { media: readBack } : {}),
    };
  });
  return {
    kind: 'abridge',
    span: { messageIds: [message.id], firstTurn: message.turn, lastTurn: message.turn },
    parts: [...media, ...pastes].sort((left, right) => left.index - right.index),
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
  if (part.source.kind === 'artifact') return `artifact:${part.source.artifactId}`;
  // Base64, in a `data:` URL or not, is never shown as text (ADR-0265): the original stays in the log.
  const inline = inlineMediaData(part.source);
  if (inline)
    return `inline data (${Math.ceil((inline.data.length * 3) / 4 / 1024)} KB), kept in the conversation log`;
  return part.source.kind === 'url' ? part.source.url : '';
}

/**
 * The artifacts an abridged message holds, as a summary that absorbs it lists them (ADR-0265,
 * ADR-0330): the full text of its clipped pastes, and each stored image or document, described by
 * its kind, type and turn, with its caption or name as the hint unless its sensitivity needs a
 * permission (the plan is shown to every key of the tenant). The id is written once, by the line.
 *
 * @param record - The abridge record.
 * @returns The artifacts, the text first, then the media in order.
 */
export function abridgedSummaryArtifacts(record: AbridgeRecord): SummaryArtifact[] {
  const artifacts: SummaryArtifact[] = [];
  if (record.artifactId)
    artifacts.push({
      artifactId: record.artifactId,
      description: 'full user message',
      rehydrateHint: record.rehydrateHint ?? '',
    });
  for (const part of record.parts) {
    const described = new Map(
      mediaStandInDescriptions(part.text).map((entry) => [entry.reference, entry.described]),
    );
    for (const medium of part.media ?? []) {
      if (!medium.artifactId || artifacts.some((known) => known.artifactId === medium.artifactId)) continue;
      const caption =
        medium.sensitivity && sensitivityNeedsPermission(medium.sensitivity)
          ? ''
          : (described.get(`artifact:${medium.artifactId}`) ?? '');
      const readBack = `read_artifact shows it again as ${medium.kind === 'image' ? 'an image' : 'a document'}`;
      artifacts.push({
        artifactId: medium.artifactId,
        description: `${medium.kind} (${medium.mediaType}) of turn ${record.span.firstTurn}`,
        rehydrateHint: caption ? `${caption}; ${readBack}` : readBack,
      });
    }
  }
  return artifacts;
}
