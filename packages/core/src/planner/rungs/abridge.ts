import { toolOutputSensitivity } from '../../durability/tool-sensitivity.js';
import { stricterSensitivity } from '../../ports/artifact-rules.js';
import { holdsOpaquePart, inlineMediaData } from '../../schemas/content.js';
import {
  abridgedTokens,
  abridgeRecordOf,
  draftAbridgement,
  inlineMedia,
  type StoredMedium,
} from '../abridge-parts.js';
import { actionsOf } from '../candidates.js';
import type { Proposal, Rung, RungContext } from '../planner-types.js';
import { reusedAnalysis } from '../proposal-reuse.js';

/**
 * The first rung (ADR-0265): a user or assistant message before the protected tail keeps its place
 * and its words, with each image and document replaced by its caption and a reference, and (in a
 * user message) each long pasted block clipped to head and tail (ADR-0266). The cheapest loss: an
 * old picture costs a provider's fixed image estimate (1,600 tokens for Anthropic) and its caption a
 * few dozen. The user's kept words (`keptUserMessageIds`) may be abridged, nothing else untouchable.
 * With `abridgeTailMedia`, the media (only) of the protected tail's older turns follow (ADR-0267).
 * A tool result's images and documents give way too, the result kept with its text (ADR-0311); inline
 * media are kept as artifacts read_artifact gives back as images (ADR-0310).
 */
export const abridgeRung: Rung = {
  name: 'abridge',
  analyze(context) {
    // Read from the previous step's analysis when no message can have come back to include (ADR-0380).
    return reusedAnalysis(
      'abridge',
      context,
      (action) => action === 'include',
      () => abridgeProposals(context),
    );
  },
  async execute(context, proposal) {
    const { input, policy } = context;
    const message = input.thread.messages.find((candidate) => candidate.id === proposal.span.messageIds[0]);
    if (!message) return null;
    const drafted = draftAbridgement(message, policy.abridgePasteEdgeLines);
    if (!drafted) return null;
    const inTail = message.index >= context.regions.protectedStart;
    const draft = inTail ? { media: drafted.media, pastes: [] } : drafted;
    const store = input.artifactStore;
    if (!store) return { added: [abridgeRecordOf(message, draft)] };
    const defaults = input.artifactDefaults ?? {};
    const floor = defaults.sensitivity ?? 'internal';
    const common = {
      threadId: input.thread.id,
      tenantId: input.thread.tenantId,
      ...(defaults.ttlSeconds !== undefined ? { ttlSeconds: defaults.ttlSeconds } : {}),
      ...(defaults.encryptionKeyId !== undefined ? { encryptionKeyId: defaults.encryptionKeyId } : {}),
    };
    // Inline images and documents are kept as artifacts, so read_artifact gives them back as themselves
    // (ADR-0310); a tool's output keeps the sensitivity its policy gives it (ADR-0059).
    const storedMedia = new Map<object, StoredMedium>();
    const toolNames = message.content.flatMap((part) => (part.type === 'tool_result' ? [part.toolName] : []));
    const mediaSensitivity = toolNames
      .map((toolName) => toolOutputSensitivity(toolName, policy.toolDurability, floor))
      .reduce(stricterSensitivity, floor);
    for (const medium of inlineMedia(draft)) {
      const inline = inlineMediaData(medium.source);
      if (!inline || storedMedia.has(medium)) continue;
      // A `data:` URL is inline data too (ADR-0330): stored as base64, read back as an image.
      const metadata = await store.put(inline.data, {
        ...common,
        sensitivity: mediaSensitivity,
        contentType: storedMediaType(medium.mediaType, inline.mediaType),
        labels: { messageId: message.id, kind: medium.type },
      });
      storedMedia.set(medium, { artifactId: metadata.artifactId, sensitivity: metadata.sensitivity });
    }
    if (draft.pastes.length === 0)
      return { added: [abridgeRecordOf(message, draft, undefined, storedMedia)] };
    // The whole text goes to the store, so read_artifact gives back what the clip left out.
    const text = draft.pastes
      .map(({ index }) => {
        const part = message.content[index];
        return part?.type === 'text' ? part.text : '';
      })
      .join('\n\n');
    const metadata = await store.put(text, {
      ...common,
      sensitivity: floor,
      contentType: 'text/plain',
      labels: { messageId: message.id },
    });
    const rehydrateHint = `call read_artifact("${metadata.artifactId}") for the full pasted material of turn ${message.turn} (${text.length} characters)`;
    return {
      added: [
        abridgeRecordOf(
          message,
          draft,
          { artifactId: metadata.artifactId, rehydrateHint, sensitivity: metadata.sensitivity },
          storedMedia,
        ),
      ],
    };
  },
};

/** The abridge rung's full analysis: what it may abridge before the tail (and the tail's older media). */
function abridgeProposals(context: RungContext): Proposal[] {
  const actionOf = actionsOf(context);
  const { regions, policy, input } = context;
  const messages = input.thread.messages;
  const lastTurn = messages.at(-1)?.turn ?? 0;
  const hiddenAt = context.index.hiddenAt(context.plan);
  const older: Proposal[] = [];
  const tail: Proposal[] = [];
  for (const message of messages) {
    const inTail = message.index >= regions.protectedStart;
    // The tail's older turns give up their pictures only (ADR-0267); the newest turn keeps everything.
    if (inTail && (!policy.abridgeTailMedia || message.turn >= lastTurn)) break;
    // Summarized or dropped (most of a long history): known by position, without the owner map (ADR-0417).
    if (hiddenAt[message.index] === 1 || actionOf(message) !== 'include') continue;
    if (regions.untouchable.has(message.id) && !regions.keptUserWords.has(message.id)) continue;
    if (message.pinned === true || holdsOpaquePart(message)) continue;
    const drafted = draftAbridgement(message, policy.abridgePasteEdgeLines);
    const draft = drafted && inTail ? { media: drafted.media, pastes: [] } : drafted;
    if (!draft || draft.media.length + draft.pastes.length === 0) continue;
    const freed = input.countMessage(message) - abridgedTokens(message, draft, input.countMessage);
    if (freed < policy.abridgeMinTokensFreed) continue;
    const what = [
      ...(draft.media.length > 0
        ? [`${draft.media.length} ${message.role === 'tool' ? 'tool result(s) with media' : 'media part(s)'}`]
        : []),
      ...(draft.pastes.length > 0 ? [`${draft.pastes.length} pasted text part(s)`] : []),
    ].join(' and ');
    (inTail ? tail : older).push({
      rung: 'abridge',
      span: { messageIds: [message.id], firstTurn: message.turn, lastTurn: message.turn },
      estimatedTokensFreed: freed,
      reason: `${what} of ${message.id}${inTail ? ' (protected tail, older turn)' : ''} replaced by stand-ins, freeing about ${freed} tokens`,
    });
  }
  // Oldest first, and everything before the tail before anything in it.
  return [...older, ...tail];
}

/** The stored medium's type: the part's, unless it is a wildcard and its `data:` URL names one. */
function storedMediaType(partType: string, dataUrlType: string | undefined): string {
  return partType.endsWith('/*') && dataUrlType ? dataUrlType : partType;
}
