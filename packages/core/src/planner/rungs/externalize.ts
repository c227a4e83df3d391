import { collectKeyFields, resolveToolDurability } from '../../durability/policy.js';
import { toolOutputSensitivity } from '../../durability/tool-sensitivity.js';
import type { ExternalizationRecord } from '../../plan/records.js';
import { spanOf } from '../../plan/span.js';
import { sensitivityNeedsPermission, stricterSensitivity } from '../../ports/artifact-rules.js';
import type { ToolResultPart } from '../../schemas/content.js';
import { stableStringify } from '../../stable-json.js';
import { type SummaryArtifact, structuredSummarySchema } from '../../summary/structured-summary.js';
import { abridgedSummaryArtifacts } from '../abridge-parts.js';
import { shrinkableToolMessages } from '../candidates.js';
import type { Proposal, Rung, RungContext } from '../planner-types.js';
import { reusedAnalysis } from '../proposal-reuse.js';

/** Tokens a pointer message costs once rendered (prefix, summary line, read_artifact instruction). */
const POINTER_OVERHEAD_TOKENS = 80;
const PREVIEW_CHARS = 300;

function resultParts(content: readonly { type: string }[]): ToolResultPart[] {
  return content.filter((part): part is ToolResultPart => part.type === 'tool_result');
}

/**
 * A tool result's content as text.
 *
 * @param part - The tool result.
 * @returns Its string content, or its structured content as stable JSON.
 */
export function contentAsText(part: ToolResultPart): string {
  return typeof part.content === 'string' ? part.content : stableStringify(part.content);
}

/**
 * The first `PREVIEW_CHARS` of `text` with each run of whitespace as one space, trimmed: exactly
 * `text.replace(/\s+/g, ' ').trim().slice(0, PREVIEW_CHARS)`, read from a prefix that already holds
 * more than that many characters once collapsed, so a long result is not rewritten whole (ADR-0346).
 * A collapsed prefix is a prefix of the collapsed whole, and trimming the end takes at most its last
 * space, so a collapsed prefix longer than `PREVIEW_CHARS` already holds the answer.
 *
 * @param text - The externalized text.
 * @returns Its preview (empty when the text is all whitespace).
 */
export function previewOf(text: string): string {
  for (let scanned = 4 * PREVIEW_CHARS; scanned < text.length; scanned *= 4) {
    const collapsed = text.slice(0, scanned).replace(/\s+/g, ' ').trimStart();
    if (collapsed.length > PREVIEW_CHARS) return collapsed.slice(0, PREVIEW_CHARS);
  }
  return text.replace(/\s+/g, ' ').trim().slice(0, PREVIEW_CHARS);
}

/**
 * Large non-replayable results (and large anchoring ones) go to the artifact store and are
 * replaced by a pointer with a summary and a rehydrate hint. Ephemeral and replayable results
 * are left to the clear rung: they are cheap to produce again.
 */
export const externalizeRung: Rung = {
  name: 'externalize',
  analyze(context) {
    if (!context.input.artifactStore || context.input.rehydrationHappened) return [];
    // Each step takes at most a batch: the next one reads what this analysis left (ADR-0380).
    return reusedAnalysis(
      'externalize',
      context,
      (action) => action === 'include' || action === 'abridge',
      () => externalizeProposals(context),
    );
  },
  async execute(context, proposal) {
    const store = context.input.artifactStore;
    const message = context.index.byId.get(proposal.span.messageIds[0]!);
    if (!store || !message) return null;
    const parts = resultParts(message.content);
    const first = parts[0]!;
    const durability = resolveToolDurability(first, context.policy.toolDurability);
    const text = parts.map(contentAsText).join('\n\n');
    const defaults = context.input.artifactDefaults ?? {};
    // The deployment's default is a floor; a tool the policy marks stricter raises it (ADR-0059).
    const sensitivity = parts
      .map((part) =>
        toolOutputSensitivity(
          part.toolName,
          context.policy.toolDurability,
          defaults.sensitivity ?? 'internal',
        ),
      )
      .reduce(stricterSensitivity);
    const ttlSeconds = shortestTtl([
      defaults.ttlSeconds,
      ...parts.map((part) => context.policy.toolDurability.overrides[part.toolName]?.artifactTtlSeconds),
    ]);
    const metadata = await store.put(text, {
      threadId: context.input.thread.id,
      tenantId: context.input.thread.tenantId,
      sensitivity,
      ...(ttlSeconds !== undefined ? { ttlSeconds } : {}),
      ...(defaults.encryptionKeyId !== undefined ? { encryptionKeyId: defaults.encryptionKeyId } : {}),
      contentType: 'text/plain',
      labels: { toolName: first.toolName, toolCallId: first.toolCallId, messageId: message.id },
    });
    // The plan is shown to every key of the tenant (/plan, /prompt): content that needs a
    // permission to read leaves no preview there.
    const preview = sensitivityNeedsPermission(metadata.sensitivity) ? '' : previewOf(text);
    const rehydrateHint = `call read_artifact("${metadata.artifactId}") for the full ${first.toolName} output (${text.length} characters)`;
    const summary = structuredSummarySchema.parse({
      facts: preview ? [{ text: `Preview: ${preview}${text.length > PREVIEW_CHARS ? '…' : ''}` }] : [],
      toolOutcomes: parts.map((part) => ({
        toolName: part.toolName,
        toolCallId: part.toolCallId,
        outcome: part.outcome,
        keyFields: collectKeyFields(part, durability.mustPreserveFields),
      })),
      artifacts: [
        { artifactId: metadata.artifactId, description: `${first.toolName} output`, rehydrateHint },
        // Screenshots an abridgement of this result had stored stay listed (ADR-0330): the text above holds none.
        ...abridgedMediaArtifacts(context, message.id),
      ],
    });
    const record: ExternalizationRecord = {
      kind: 'externalize',
      span: proposal.span,
      artifactId: metadata.artifactId,
      summary,
      rehydrateHint,
      sensitivity: metadata.sensitivity,
    };
    return { added: [record] };
  },
};

/** The externalize rung's full analysis: large non-replayable or anchoring results it may still shrink. */
function externalizeProposals(context: RungContext): Proposal[] {
  const proposals: Proposal[] = [];
  for (const message of shrinkableToolMessages(context)) {
    const parts = resultParts(message.content);
    const first = parts[0];
    if (!first) continue;
    const durability = resolveToolDurability(first, context.policy.toolDurability);
    if (durability.durability !== 'non_replayable' && durability.durability !== 'anchoring') continue;
    const threshold = durability.externalizeThresholdTokens ?? context.policy.externalizeThresholdTokens;
    const tokens = context.input.countMessage(message);
    if (tokens <= threshold) continue;
    proposals.push({
      rung: 'externalize',
      span: spanOf([message]),
      estimatedTokensFreed: Math.max(0, tokens - POINTER_OVERHEAD_TOKENS),
      reason: `${first.toolName} result of ${tokens} tokens (${durability.durability}) is above ${threshold}`,
    });
  }
  return proposals;
}

function abridgedMediaArtifacts(context: RungContext, messageId: string): SummaryArtifact[] {
  const record = context.index.normalized(context.plan).actions.get(messageId)?.record;
  return record?.kind === 'abridge' ? abridgedSummaryArtifacts(record) : [];
}

function shortestTtl(candidates: ReadonlyArray<number | undefined>): number | undefined {
  const defined = candidates.filter((ttl): ttl is number => ttl !== undefined);
  return defined.length === 0 ? undefined : Math.min(...defined);
}
