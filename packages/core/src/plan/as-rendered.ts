import type { ToolDurabilityPolicy } from '../durability/policy.js';
import type { ContentPart } from '../schemas/content.js';
import type { Thread, ThreadMessage } from '../thread/thread.js';
import type { NormalizedPlan } from './normalize.js';
import type { AbridgeRecord, CompactionRecord } from './records.js';
import {
  clearedFieldsFor,
  clearedPlaceholderText,
  externalizationText,
  summaryText,
} from './stand-in-texts.js';

/**
 * An externalization whose span holds only tool results (the externalize rung makes these): it is
 * rendered in place, each result's slot holding the pointer, so the calls stay as they are.
 *
 * @param record - A plan record.
 * @param thread - The folded thread.
 * @returns True for an externalization covering only tool messages.
 */
export function externalizesInPlace(record: CompactionRecord, thread: Thread): boolean {
  if (record.kind !== 'externalize') return false;
  const byId = new Map(thread.messages.map((message) => [message.id, message]));
  return externalizesInPlaceAmong(record, (id) => byId.get(id));
}

/**
 * {@link externalizesInPlace} with the thread's messages looked up by id (a caller asking for many
 * records builds the lookup once instead of scanning the thread per record).
 *
 * @param record - A plan record.
 * @param messageById - The thread's message with an id, if any.
 * @returns True for an externalization covering only tool messages.
 */
export function externalizesInPlaceAmong(
  record: CompactionRecord,
  messageById: (id: string) => ThreadMessage | undefined,
): boolean {
  if (record.kind !== 'externalize') return false;
  let covered = 0;
  for (const id of new Set(record.span.messageIds)) {
    const message = messageById(id);
    if (!message) continue;
    if (message.role !== 'tool') return false;
    covered += 1;
  }
  return covered > 0;
}

/**
 * `messages` as the renderer shows them under the plan: cleared results as their placeholders,
 * abridged messages with their stand-in parts,
 * results externalized in place as the pointer, and a summarized or externalized span as one
 * assistant message with its stand-in text where the span starts. Used to show the summarizer
 * exactly what the model saw.
 *
 * @param thread - The folded thread.
 * @param messages - Messages of the thread, in order.
 * @param normalized - The plan to apply.
 * @param policy - Which key fields a cleared result's placeholder keeps.
 * @param threadMessageById - The thread's message by id, when the caller has that map already (the planner's
 *   index: a summarize step would otherwise build it again for every span holding an externalization).
 * @returns The messages with every stand-in applied (a span's later messages left out).
 */
export function messagesAsRendered(
  thread: Thread,
  messages: readonly ThreadMessage[],
  normalized: NormalizedPlan,
  policy: ToolDurabilityPolicy,
  threadMessageById?: ReadonlyMap<string, ThreadMessage>,
): ThreadMessage[] {
  const shown: ThreadMessage[] = [];
  const spansShown = new Set<CompactionRecord>();
  let byId = threadMessageById;
  const messageById = (id: string) => {
    byId ??= new Map(thread.messages.map((message) => [message.id, message]));
    return byId.get(id);
  };
  // Once per record, not once per message it holds (a record of k results was walked k times).
  const inPlace = new Map<CompactionRecord, boolean>();
  const externalizedInPlace = (record: CompactionRecord) => {
    let known = inPlace.get(record);
    if (known === undefined) {
      known = externalizesInPlaceAmong(record, messageById);
      inPlace.set(record, known);
    }
    return known;
  };
  for (const message of messages) {
    const record = normalized.actions.get(message.id)?.record;
    if (!record || record.kind === 'drop') {
      if (!record) shown.push(message);
      continue;
    }
    if (record.kind === 'abridge') {
      shown.push(abridgedMessage(message, record));
      continue;
    }
    if (record.kind === 'clear' || (record.kind === 'externalize' && externalizedInPlace(record))) {
      shown.push({
        ...message,
        content: message.content.map((part) => standInPart(part, message, record, policy)),
      });
      continue;
    }
    if (spansShown.has(record)) continue;
    spansShown.add(record);
    const text = record.kind === 'summarize' ? summaryText(record) : externalizationText(record);
    shown.push({ ...message, role: 'assistant', content: [{ type: 'text', text }] });
  }
  return shown;
}

function standInPart(
  part: ContentPart,
  message: ThreadMessage,
  record: Exclude<CompactionRecord, { kind: 'summarize' | 'drop' | 'abridge' }>,
  policy: ToolDurabilityPolicy,
): ContentPart {
  if (part.type !== 'tool_result') return part;
  if (record.kind === 'externalize') return { ...part, content: externalizationText(record) };
  const fields = clearedFieldsFor(record, message.id, part, policy);
  return { ...part, content: clearedPlaceholderText(fields.toolName, fields.outcome, fields.keyFields) };
}

/**
 * A message as an abridge record shows it (ADR-0265): each replaced image, document or text part
 * becomes a text part holding its stand-in, in place; every other part stays as it is.
 *
 * @param message - The abridged message.
 * @param record - Its abridge record.
 * @returns The message with the stand-ins applied.
 */
export function abridgedMessage(message: ThreadMessage, record: AbridgeRecord): ThreadMessage {
  const byIndex = new Map(record.parts.map((part) => [part.index, part]));
  return {
    ...message,
    content: message.content.map((part, index) => {
      const replaced = byIndex.get(index);
      if (replaced === undefined) return part;
      // A result stays a result (its pair intact): only its media give way, their stand-ins after its text (ADR-0311).
      if (part.type === 'tool_result') {
        if (replaced.reason !== 'result-media' || !part.media || part.media.length === 0) return part;
        const { media: _media, ...result } = part;
        const text = typeof part.content === 'string' ? part.content : JSON.stringify(part.content);
        return { ...result, content: text.trim() === '' ? replaced.text : `${text}\n${replaced.text}` };
      }
      // Only media and text are ever replaced: a tool call keeps its pair intact.
      const replaceable = part.type === 'image' || part.type === 'document' || part.type === 'text';
      return !replaceable || replaced.reason === 'result-media'
        ? part
        : { type: 'text', text: replaced.text };
    }),
  };
}
