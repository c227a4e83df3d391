import {
  type AbridgedMedia,
  type ArtifactSensitivity,
  type ArtifactStore,
  artifactAccessDecision,
  type CompactionPlan,
  type DocumentPart,
  type ImagePart,
  mediaStandInDescriptions,
  type ProviderName,
  providerNameSchema,
  type SecurityContext,
  type Tokenizer,
  type ToolDefinition,
  type ToolResultPart,
} from '@compactor/core';
import { abridgedMediaReferences, knownArtifactIds } from './artifact-references.js';
import type { RehydrationBlockReason, RehydrationEvent } from './rehydration-types.js';
import { truncateToTokens } from './truncate-to-tokens.js';

/** The name of the tool that reads an externalized artifact back. */
export const READ_ARTIFACT_TOOL_NAME = 'read_artifact';

/** The tool every externalization pointer tells the model to call. */
export const readArtifactTool: ToolDefinition = {
  name: READ_ARTIFACT_TOOL_NAME,
  description:
    'Read back the full content of an externalized artifact. Use the id shown after "artifact:" in an [Externalized Content] note.',
  inputSchema: {
    type: 'object',
    properties: {
      artifact_id: { type: 'string', description: 'The artifact id, e.g. the one in read_artifact("…").' },
    },
    required: ['artifact_id'],
    additionalProperties: false,
  },
};

/** Where {@link handleReadArtifact} reads from, for whom, and how much it may return. */
export interface ReadArtifactContext {
  /** The id of the model's read_artifact call, answered by the returned result. */
  toolCallId: string;
  artifactStore: ArtifactStore;
  securityContext: SecurityContext;
  /** When given, only artifacts this plan knows can be read (no probing of other ids). */
  plan?: CompactionPlan | null;
  /**
   * Truncate the content to this many tokens (needs `tokenizer`). An image or document is never cut:
   * one that would cost more comes back as a note of its size and what it shows (ADR-0331).
   */
  maxTokens?: number;
  tokenizer?: Tokenizer;
  /**
   * The format the result will be sent in, to count an image or document against `maxTokens`; without
   * it, the highest estimate of the four formats is used.
   */
  provider?: ProviderName;
  /**
   * For the event.
   * @defaultValue 0
   */
  turn?: number;
}

/** A read_artifact call's answer and the rehydration event it makes. */
export interface ReadArtifactOutcome {
  /** Append it to the log in a tool message: it answers the call like any tool result. */
  result: ToolResultPart;
  event: RehydrationEvent;
}

/**
 * The explicit half of rehydration (ADR-0008): the handler of a `read_artifact` call. This is the
 * only way confidential and restricted artifacts come back, and only for a security context whose
 * tenant and permissions allow it. The result is replayable (reading a content-addressed artifact
 * again gives the same bytes), so compaction may clear it cheaply later.
 *
 * @param input - The call's input, expected as `{ artifact_id: string }`.
 * @param context - The store, security context, plan and limits.
 * @returns The tool result (a failure result for bad input, an unknown id, a missing artifact or a
 *   denied access, never a throw for those) and its event.
 */
export async function handleReadArtifact(
  input: unknown,
  context: ReadArtifactContext,
): Promise<ReadArtifactOutcome> {
  const turn = context.turn ?? 0;
  const artifactId =
    typeof input === 'object' &&
    input !== null &&
    typeof (input as { artifact_id?: unknown }).artifact_id === 'string'
      ? (input as { artifact_id: string }).artifact_id.trim()
      : '';
  const fail = (reason: RehydrationBlockReason, message: string, detail?: string): ReadArtifactOutcome => ({
    result: {
      type: 'tool_result',
      toolName: READ_ARTIFACT_TOOL_NAME,
      toolCallId: context.toolCallId,
      outcome: 'failure',
      content: message,
      keyFields: artifactId === '' ? {} : { artifact_id: artifactId },
      durability: 'ephemeral',
    },
    event: {
      name: 'compaction_rehydration_blocked',
      artifactId,
      turn,
      trigger: 'explicit',
      reason,
      ...(detail ? { detail } : {}),
    },
  });
  if (artifactId === '') return fail('invalid_input', 'read_artifact needs {"artifact_id": string}.');
  // An image or document read back as itself, cut to a note when over the caller's maxTokens (ADR-0310, ADR-0331).
  const mediaReadBack = (
    medium: Parameters<typeof mediaResult>[2],
    determinism: Parameters<typeof mediaResult>[3],
    sensitivity?: ArtifactSensitivity,
  ) => {
    const result = mediaResult(context.toolCallId, artifactId, medium, determinism);
    const over = overLimit(result, artifactId, context);
    return {
      result: over?.result ?? result,
      event: {
        name: 'compaction_rehydrated' as const,
        artifactId,
        turn,
        trigger: 'explicit' as const,
        ...(sensitivity !== undefined ? { sensitivity } : {}),
        truncated: over !== undefined,
        ...(over ? { tokens: over.tokens } : {}),
      },
    };
  };
  // A replaced image or document named by its URL comes back by that URL, no store needed (ADR-0310).
  const replaced = abridgedMediaReferences(context.plan ?? null).get(artifactId.replace(/^artifact:/, ''));
  if (replaced?.url !== undefined && replaced.artifactId === undefined) {
    return mediaReadBack(mediumPart(replaced, { kind: 'url', url: replaced.url }), {});
  }
  if (context.plan !== undefined && !knownArtifactIds(context.plan ?? null).includes(artifactId)) {
    return fail('unknown_artifact', `No externalized artifact with id ${artifactId} in this conversation.`);
  }
  const metadata = await context.artifactStore.getMetadata(artifactId, context.securityContext);
  if (!metadata) return fail('not_found', `Artifact ${artifactId} was not found (or has expired).`);
  const decision = artifactAccessDecision(metadata, context.securityContext);
  if (!decision.allowed) {
    return fail('access_denied', `Access to artifact ${artifactId} was denied.`, decision.reason);
  }
  const read = await context.artifactStore.retrieve(artifactId, context.securityContext);
  if (read.status === 'denied')
    return fail('access_denied', `Access to artifact ${artifactId} was denied.`, read.reason);
  if (read.status === 'not_found')
    return fail('not_found', `Artifact ${artifactId} was not found (or has expired).`);
  // An image or document comes back as itself, never as base64 text (ADR-0310).
  const mediaType = read.metadata.contentType ?? '';
  if (isMediaType(mediaType)) {
    const medium = mediumPart(
      { kind: mediaType.startsWith('image/') ? 'image' : 'document', mediaType },
      { kind: 'base64', data: read.content },
    );
    return mediaReadBack(medium, { contentHash: read.metadata.sha256 }, read.metadata.sensitivity);
  }
  let content = read.content;
  let truncated = false;
  let tokens: number | undefined;
  if (context.maxTokens !== undefined && context.tokenizer) {
    const cut = truncateToTokens(content, context.maxTokens, context.tokenizer);
    content = cut.truncated ? `${cut.text}\n[Truncated to about ${context.maxTokens} tokens.]` : cut.text;
    truncated = cut.truncated;
    tokens = cut.tokens;
  }
  return {
    result: {
      type: 'tool_result',
      toolName: READ_ARTIFACT_TOOL_NAME,
      toolCallId: context.toolCallId,
      outcome: truncated ? 'partial' : 'success',
      content,
      keyFields: { artifact_id: artifactId },
      durability: 'replayable',
      determinism: { contentHash: read.metadata.sha256 },
    },
    event: {
      name: 'compaction_rehydrated',
      artifactId,
      turn,
      trigger: 'explicit',
      sensitivity: read.metadata.sensitivity,
      truncated,
      ...(tokens !== undefined ? { tokens } : {}),
    },
  };
}

/**
 * Whether an artifact's content type is an image or document read_artifact gives back as itself
 * (ADR-0310): the types the abridge rung stores inline media under.
 *
 * @param contentType - The artifact's content type.
 * @returns True for `image/*` and `application/pdf`.
 */
export function isMediaType(contentType: string): boolean {
  return contentType.startsWith('image/') || contentType === 'application/pdf';
}

function mediumPart(
  medium: Pick<AbridgedMedia, 'kind' | 'mediaType'>,
  source: ImagePart['source'],
): ImagePart | DocumentPart {
  return medium.kind === 'image'
    ? { type: 'image', mediaType: medium.mediaType, source }
    : { type: 'document', mediaType: medium.mediaType, source };
}

/** A read_artifact result holding one image or document, after a line saying what it is. */
function mediaResult(
  toolCallId: string,
  artifactId: string,
  medium: ImagePart | DocumentPart,
  determinism: { contentHash?: string },
): ToolResultPart {
  const label = medium.type === 'image' ? 'Image' : 'Document';
  return {
    type: 'tool_result',
    toolName: READ_ARTIFACT_TOOL_NAME,
    toolCallId,
    outcome: 'success',
    content: `[${label} read back: ${artifactId} (${medium.mediaType})]`,
    keyFields: { artifact_id: artifactId },
    durability: 'replayable',
    ...(determinism.contentHash !== undefined
      ? { determinism: { contentHash: determinism.contentHash } }
      : {}),
    media: [medium],
  };
}

/**
 * A media result that would cost more than the caller's `maxTokens` (ADR-0331): instead, a text
 * result saying what the medium is, what it shows (its caption or name, from the plan) and what it
 * would cost, cut to the limit. The medium is never cut or sent as text; the rule is in the result,
 * not in read_artifact's description, which stays byte-stable (issue #19).
 *
 * @returns The note and its tokens, or undefined when the medium fits (or nothing limits it).
 */
function overLimit(
  result: ToolResultPart,
  artifactId: string,
  context: ReadArtifactContext,
): { result: ToolResultPart; tokens: number } | undefined {
  const { maxTokens, tokenizer } = context;
  const medium = result.media?.[0];
  if (maxTokens === undefined || !tokenizer || !medium) return undefined;
  const providers = context.provider ? [context.provider] : providerNameSchema.options;
  const cost = Math.max(
    ...providers.map((provider) =>
      tokenizer.countMessage({ id: 'read_artifact', role: 'tool', content: [result] }, provider),
    ),
  );
  if (cost <= maxTokens) return undefined;
  const label = medium.type === 'image' ? 'Image' : 'Document';
  const described = mediaDescription(context.plan ?? null, artifactId);
  const note = [
    `[${label} not shown: ${artifactId} (${medium.mediaType}) costs about ${cost} tokens as sent, more than this read's limit of ${maxTokens} tokens.]`,
    ...(described ? [`What it shows: ${described}`] : []),
  ].join('\n');
  const cut = truncateToTokens(note, maxTokens, tokenizer);
  const { media: _media, ...text } = result;
  return { result: { ...text, outcome: 'partial', content: cut.text }, tokens: cut.tokens };
}

/** What the plan says a read-back medium shows: its stand-in's caption or name, or its summary line. */
function mediaDescription(plan: CompactionPlan | null, artifactId: string): string {
  const id = artifactId.replace(/^artifact:/, '');
  const reference = `artifact:${id}`;
  for (const record of plan?.abridgements ?? []) {
    for (const part of record.parts) {
      // A stored medium's stand-in names `artifact:ID`; a URL medium's names its URL.
      const found = mediaStandInDescriptions(part.text).find(
        (entry) => entry.reference === reference || entry.reference === id,
      );
      if (found?.described) return found.described;
    }
  }
  const listed = [...(plan?.summarizations ?? []), ...(plan?.externalizations ?? [])]
    .flatMap((record) => [...record.summary.artifacts, ...(record.summary.externalizedArtifacts ?? [])])
    .find((artifact) => `artifact:${artifact.artifactId}` === reference);
  return listed ? `${listed.description} (${listed.rehydrateHint})` : '';
}
