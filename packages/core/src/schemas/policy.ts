import { z } from 'zod';
import { toolDurabilityPolicySchema } from '../durability/policy.js';
import { summaryStyleSchema } from '../plan/summary-style.js';
import { triggerConfigSchema } from '../triggers/trigger-config.js';
import { expandPolicyPreset, policyPresetNameSchema } from './policy-presets.js';

export const rehydrationPolicySchema = z.object({
  enabled: z.boolean().default(true),
  maxArtifactsPerTurn: z.number().int().min(0).default(3),
  maxTokensPerArtifact: z.number().int().positive().default(4000),
  totalBudgetTokens: z.number().int().min(0).default(8000),
  cooldownTurns: z.number().int().min(0).default(2),
  autoRehydrateSensitivities: z
    .array(z.enum(['public', 'internal', 'confidential', 'restricted']))
    .default(['public', 'internal']),
});
/** Limits on automatic rehydration (ADR-0008). */
export type RehydrationPolicy = z.infer<typeof rehydrationPolicySchema>;

/**
 * Recall at render time (ADR-0111): compacted turns that match the newest user turn come back as
 * one ephemeral block inside the rehydration reserve.
 */
export const recallPolicySchema = z.object({
  enabled: z.boolean().default(true),
  /** Share of the budget's rehydration reserve recall may use (rehydrated artifacts take theirs first). */
  reserveShare: z.number().min(0).max(1).default(1),
  topK: z.number().int().min(0).default(4),
  /** BM25 score below which a hit is left out. */
  minScore: z.number().min(0).default(1),
  /**
   * Use the budget (ADR-0162): recall may also fill the room the rendered request leaves under the
   * ceiling (the output reserve and safety buffer stay untouched), beyond the rehydration reserve.
   * The plan keeps its compaction target; recall is ephemeral, so the room is given back next turn.
   */
  fillFreeRoom: z.boolean().default(true),
  /** Hits recall may bring when it fills free room beyond the reserve (`topK` otherwise). */
  freeRoomTopK: z.number().int().min(0).default(24),
  /**
   * Where the block goes (ADR-0210): `turn` right after the message that opened the newest
   * turn, the block of the room the turn began with, byte-identical (and cached) over the turn's calls
   * while it fits, else at the end sized to the room left; `turn-halving` also tries the block of half
   * that room before going to the end (cached longer, but a smaller block late in a turn); `end` after
   * the newest message, sized afresh on every call (ADR-0111's placement); `append` (ADR-0276) keeps
   * every turn's block of the plan version in place, byte for byte, and adds only new hits at a new turn;
   * `auto` (the default, ADR-0276) is `append` on a coding thread (tool calls) and `turn` otherwise.
   */
  placement: z.enum(['auto', 'turn', 'turn-halving', 'end', 'append']).default('auto'),
  /**
   * With `placement: 'append'` (ADR-0276): every turn of a plan version keeps its block where it was
   * first sent, and each turn's block takes at most this share of the room its epoch began with (at
   * least the reserve's allowance). Smaller: more turns before the blocks are reset (a cache break),
   * a smaller block per turn (0.1 by default, ADR-0436: each block is written once; ADR-0321's 0.125,
   * half of ADR-0276's 0.25, kept every coding probe for less, and with ADR-0435's bound 0.1 does again).
   */
  appendTurnShare: z.number().min(0).max(1).default(0.1),
  /**
   * With `placement: 'append'` (ADR-0335): the blocks of a plan version together take at most the room
   * the request still has once the messages reach the high-water mark, where the next compaction fires,
   * and no new epoch starts within it. A block pushed out by the growing messages rewrites everything
   * after it, usually a few calls before the commit does; bounded, the coding runs' cached share rises
   * (pi/session @32k 0.839 → 0.856) but later turns recall less (needle facts at 8k 94.3% → 91.8%, two
   * pi probes lost), so it is off by default: `false` sizes blocks by the room of the moment (ADR-0276).
   */
  appendWithinHighWater: z.boolean().default(false),
  /**
   * With `placement: 'append'` (ADR-0360): the turn that was running when the plan was made keeps its
   * block for the whole plan version, as the turns opened after it do; otherwise (ADR-0276) it has a
   * block only while it is the newest turn, and when the next turn opens the block goes and everything
   * after it is written to the cache again. Off by default: the kept block takes room from the later
   * turns' blocks (a coding probe lost in `--quick` and one on pi; pi/session @32k costlier).
   */
  appendKeepsBasisTurn: z.boolean().default(false),
  /**
   * With `placement: 'append'` and `appendKeepsBasisTurn` off (ADR-0465): the turn that was running when
   * the plan was made keeps the block it had as the newest turn once the next turn opens, if a call under
   * the plan sent it (an assistant message of the turn after the basis) and it is at most this multiple of
   * the room the request has beside the messages at the high-water mark. It stands outside the later
   * turns' epochs (they count it as conversation before them), and the epoch after it is bounded as a
   * restarted one (ADR-0435), the kept block within the bound. Otherwise the block goes when the next
   * turn opens, as with `0` (ADR-0276). 0.5: larger shares were cheaper but lost a pi probe.
   */
  appendBasisWithinHighWater: z.number().min(0).max(8).default(0.5),
  /**
   * With `placement: 'append'` (ADR-0361): the engine's check commits a compaction when the request
   * it would render leaves out a block of the plan version (the messages grew past the room it was
   * sized for) or starts a new epoch of blocks, instead of sending it (which rewrites everything after
   * the block's place and is followed by the commit a few calls later); only above the low-water mark,
   * where a commit goes down to. Off by default: more commits, so claude-code @24k's share falls.
   * `'when-it-pays'` (ADR-0430): only when that request would be the first to break there (the previous
   * call's request still sent the block) and the break is at least the share of a commit spent early
   * (core's `earlyCommitPays`).
   */
  appendCommitWhenLeftOut: z.union([z.boolean(), z.literal('when-it-pays')]).default(false),
  /**
   * With `placement: 'append'` (ADR-0390): when the newest turn's block no longer fits beside its grown
   * messages, the block that replaces it stays where it was first sent (after the message at which the
   * old one stopped fitting) and takes this share of the room left there, so later calls append after
   * it and read it from the cache; when it too stops fitting, the next one goes further on, again with
   * this share of the room left. `0`: ADR-0276's block at the end, sized to the room left and so
   * rewritten on every call.
   */
  appendMovedShare: z.number().min(0).max(1).default(0.5),
  /**
   * With `placement: 'append'` (ADR-0435): an epoch of blocks that a restart began (ADR-0276's reset, when a
   * new turn finds too little room beside the blocks) holds its blocks together within this multiple of the
   * room the request has once the messages reach the high-water mark, and no further epoch starts before the
   * next commit. Each restart rewrites everything after the plan version's first block (pi/large-session @64k:
   * 17 restarts wrote 179k tokens), and an unbounded restarted epoch fills up and restarts again before the
   * commit. `0`: ADR-0276's restarts as often as the room runs out. The first epoch after a commit is unbounded
   * (ADR-0335's bound there cost recall).
   */
  appendRestartWithinHighWater: z.number().min(0).max(8).default(1.25),
  /**
   * When a recall block is written at all (ADR-0320): `always`, on every render with hits; `question`,
   * only when the newest turn asks something (a question, or a cue such as "remind me"), since a block
   * for small talk is read by no one and, in a dialogue where every call opens a turn, written uncached
   * on every call; `auto` (the default) is `question` on a dialogue and `always` otherwise (an agent's
   * turn is an instruction, and its block is written once and read on the turn's many calls).
   */
  gate: z.enum(['auto', 'always', 'question']).default('auto'),
  /**
   * A compacted message whose whole text a summary block of the plan quotes verbatim (an extractive
   * dialogue summary quotes many, ADR-0160) is in the request already (ADR-0366): `skip` (the default)
   * leaves it out of the block after the search (a smaller block: fewer tokens written uncached on every
   * asking turn, the same words in the request); `replace` leaves it out of the search, so another hit
   * takes its place; `show` brings it again like any hit.
   */
  quotedHits: z.enum(['show', 'skip', 'replace']).default('skip'),
});
export type RecallPolicy = z.infer<typeof recallPolicySchema>;

/**
 * How a thread is compacted: the strategy ladder (the default), or one of the deterministic modes (ADR-0011).
 * The deterministic windows and recursive summarization produce plans too; they never change events.
 */
export const compactionModeSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('ladder') }),
  z.object({ kind: z.literal('sliding-window'), maxEvents: z.number().int().min(0) }),
  z.object({ kind: z.literal('turn-window'), maxTurns: z.number().int().min(0) }),
  z.object({ kind: z.literal('token-budget'), maxTokens: z.number().int().min(0) }),
  z
    .object({
      kind: z.literal('recursive-summarization'),
      /** The active window: real events kept verbatim. */
      maxEventsToKeep: z.number().int().min(1),
      /** Events of the active window fed to the summarizer as context (not summarized away). */
      overlapSize: z.number().int().min(0).default(2),
      /**
       * The active window by tokens instead (pi's `keepRecentTokens`, ADR-0186): the newest contiguous
       * suffix within this many tokens, starting at a user message; `maxEventsToKeep` is then unused.
       */
      maxTokensToKeep: z.number().int().min(0).optional(),
      /** Replaces the summarizer's system prompt (the session service's `systemPrompt`). */
      systemPrompt: z.string().min(1).max(20_000).optional(),
      /** The user turn sent before the summary when summaries render as a pair (`shadowPrompt`). */
      shadowPrompt: z.string().min(1).max(20_000).optional(),
    })
    .refine((mode) => mode.overlapSize < mode.maxEventsToKeep, {
      message: 'overlapSize must be at least 0 and below maxEventsToKeep',
      path: ['overlapSize'],
    }),
]);
/** The ladder, or one of the deterministic modes with its setting. */
export type CompactionMode = z.infer<typeof compactionModeSchema>;

/**
 * The policy's fields, before a preset is expanded: what a partial policy (a thread's creation
 * event, a request body) is checked against. `compactionPolicySchema` is the complete policy.
 */
export const compactionPolicyFieldsSchema = z.object({
  /** A named policy (ADR-0106) the other fields start from; explicit fields override it. */
  preset: policyPresetNameSchema.optional(),
  version: z.string().default('1'),
  mode: compactionModeSchema.default({ kind: 'ladder' }),
  /** The off switch: when false, only manual compaction runs. */
  autoCompact: z.boolean().default(true),
  trigger: triggerConfigSchema.default({ kind: 'target' }),
  /** Fraction of the window the compacted prompt should come down to (the planner's target). */
  softThresholdPercent: z.number().gt(0).max(1).default(0.85),
  /** Tokens reserved for the model's answer (pi's `reserveTokens`, ADR-0009). */
  outputReserveTokens: z.number().int().min(0).default(16384),
  safetyBufferTokens: z.number().int().min(0).default(500),
  rehydrationReserveTokens: z.number().int().min(0).default(2000),
  /** The protected tail: never compacted (ADR-0005). */
  keepRecentTurns: z.number().int().min(0).default(3),
  keepRecentTokens: z.number().int().min(0).default(20000),
  /**
   * The protected token suffix is at most this share of the window (`policyForWindow`, ADR-0316): the
   * default 20k is 10% of a 200k window, and 0.1 keeps that proportion on smaller windows. A compaction
   * rewrites the kept tail after the first summarized byte, and the room between the tail and the
   * high-water mark is what the next calls grow into, so a deeper tail means fewer, cheaper cache
   * breaks. 0.25 was the cap before (the commits' share of uncached tokens on claude-code @24k 28.5%).
   */
  keepRecentTokensShare: z.number().gt(0).max(1).default(0.1),
  /**
   * The user's own words (ADR-0110): messages a person wrote are kept verbatim, newest first, while
   * they fit `keepUserTokens` (Codex keeps 20k); past that share, those carrying a standing instruction
   * are kept, oldest first, while they fit `keepUserInstructionTokens`.
   */
  keepUserMessages: z.boolean().default(true),
  keepUserTokens: z.number().int().min(0).default(20000),
  keepUserInstructionTokens: z.number().int().min(0).default(8000),
  /**
   * In a dialogue between named people (`threadKindOf` and `hasNamedSpeakers`, ADR-0160: imported
   * transcripts whose messages name their speakers) the rolling summary keeps both speakers'
   * informative turns: by default only the user's instruction-carrying messages are kept verbatim there
   * (`instructions`); `all` applies `keepUserTokens` as in any other thread. A chat with an assistant
   * always keeps the user's words (ADR-0110).
   */
  keepUserWordsInDialogue: z.enum(['instructions', 'all']).default('instructions'),
  strategies: z
    .object({
      /** Old images and documents by their caption, pasted blocks clipped, before anything else (ADR-0265). */
      abridge: z.boolean().default(true),
      externalize: z.boolean().default(true),
      summarize: z.boolean().default(true),
      clear: z.boolean().default(true),
      drop: z.boolean().default(true),
    })
    .default({ abridge: true, externalize: true, summarize: true, clear: true, drop: true }),
  externalizeThresholdTokens: z.number().int().positive().default(1000),
  /**
   * The abridge rung (ADR-0265) takes a message outside the protected tail only when replacing its
   * media and clipping its pastes frees at least this many tokens.
   */
  abridgeMinTokensFreed: z.number().int().min(1).default(100),
  /** Lines kept from each end of a pasted block the abridge rung clips (ADR-0266). */
  abridgePasteEdgeLines: z.number().int().min(1).default(5),
  /**
   * After every message before the protected tail, the abridge rung may replace the media of the tail's
   * older turns too (never the newest turn's, never a paste there): a picture is the tail's cheapest loss
   * (ADR-0267).
   */
  abridgeTailMedia: z.boolean().default(true),
  /**
   * When the check abridges a message's media (ADR-0440): `always` as soon as its turn is over (a commit
   * of abridgements alone, when the cache cost model says it pays: it rewrites only what follows the
   * message and postpones the next compaction); `auto` so on a dialogue only, where pictures, not words,
   * bring the messages to the high-water mark; `never` (the default) only when the ladder needs the room.
   * Off by default: on LoCoMo conversation 1 @16k `auto` raises the cached share 0.902 → 0.914 and cuts
   * the cost $0.71 → $0.66, but one summary quote (two questions' evidence) goes, 168 → 167 of 199.
   */
  abridgeMediaPastTurn: z.enum(['auto', 'always', 'never']).default('never'),
  /**
   * The least a compaction frees: once the ladder compacts at all it climbs until the prompt is this
   * far below where it started (or at the target, whichever is lower), so a thread hovering at its
   * threshold is not compacted again on every append. The engine also skips committing an automatic
   * plan that misses its target and frees less than this.
   */
  clearAtLeastTokens: z.number().int().min(0).default(2000),
  /**
   * The rolling summary is kept within this many tokens (unpinned content thinned evenly; pinned facts
   * and key fields never go). Default: 15% of the planner's target, between 500 and 8000.
   */
  summaryBudgetTokens: z.number().int().positive().optional(),
  /**
   * Without `summaryBudgetTokens`, the rolling summary's share of the planner's target by the kind of
   * thread (ADR-0160): a dialogue's summary carries both speakers' informative turns and needs room; a
   * coding session's carries the state of its whole history (files, failures, decisions), which 15% of the
   * target could not hold (ADR-0270).
   */
  summaryShare: z
    .object({
      dialogue: z.number().gt(0).max(1).default(0.4),
      coding: z.number().gt(0).max(1).default(0.3),
      other: z.number().gt(0).max(1).default(0.15),
    })
    .default({ dialogue: 0.4, coding: 0.3, other: 0.15 }),
  /** Cap on summarization rounds per thread (ADR-0017); past it the ladder degrades to clear and drop. */
  maxSummarizationRounds: z.number().int().positive().default(50),
  /** The summarizer call's `max_tokens` (pi: 0.8 × reserveTokens); default the summarizer's own. */
  summarizerMaxOutputTokens: z.number().int().positive().optional(),
  /**
   * When the summary model fails (ADR-0182): `fallback` to the extractive summary, then truncation
   * (ADR-0017), or `leave-unchanged`: no summary, the history stays as it is (the `seed-003` preset).
   */
  onSummaryFailure: z.enum(['fallback', 'leave-unchanged']).default('fallback'),
  /** How summaries are written and sent (ADR-0185); default Compactor's structured assistant message. */
  summaryStyle: summaryStyleSchema.default({ format: 'structured', message: 'assistant' }),
  /**
   * How a new summarization round composes with earlier summaries (ADR-0150): `append` (the default)
   * adds a block covering only the newly summarized span and leaves earlier blocks byte-identical, so
   * the prompt cache keeps them; `rolling` rewrites one summary over the union every round.
   */
  summaryComposition: z.enum(['append', 'rolling']).default('append'),
  /**
   * At most this many summary blocks (ADR-0150); past it, or past `summaryBudgetTokens`, the oldest
   * blocks are merged (pinned facts and key fields kept by `mergeSummaries`).
   */
  maxSummaryBlocks: z.number().int().positive().default(8),
  /**
   * Which blocks `maxSummaryBlocks` merges (ADR-0211): `newest` (the default) folds the round's new
   * block into the one before it, so the older blocks stay byte-identical and cached; `oldest` merges
   * the two oldest (the `seed-000` preset's "then merge the oldest"), rewriting the prompt's start.
   */
  summaryBlockMerge: z.enum(['newest', 'oldest']).default('newest'),
  /**
   * The cache cost model (ADR-0151): once the ladder compacts, it goes on down to the low-water mark
   * (`lowWaterPercent` of the target) when the model prices the deeper compaction cheaper per call, and
   * clears tool results only in batches worth the cache break. `false` keeps the old depth (the target,
   * or `clearAtLeastTokens` below where it started).
   */
  cacheCostModel: z.boolean().default(true),
  /**
   * Split-turn summaries (ADR-0152): when the protected tail cuts a long running turn, the summarize
   * rung may summarize the turn's older part (never splitting a tool call from its result). On by
   * default since ADR-0212 (a long turn no longer leaves the renderer sliding a window over it, which
   * broke the prompt cache on every call); `false` keeps summaries to whole turns.
   */
  splitTurnSummaries: z.boolean().default(true),
  /**
   * The high-water mark (ADR-0151): with the cost model on, the default `target` trigger fires only
   * when the messages pass this fraction of the window (computed like `softThresholdPercent`, never
   * below the target), and the planner then compacts to the target or deeper; so compaction runs less
   * often and breaks the prompt cache less often. Ignored when `cacheCostModel` is false.
   */
  highWaterPercent: z.number().gt(0).max(1).default(0.95),
  /** The low-water mark as a fraction of the planner's target (ADR-0151): the deepest the cost model goes. */
  lowWaterPercent: z.number().gt(0).max(1).default(0.7),
  toolDurability: toolDurabilityPolicySchema.default({ defaultDurability: 'anchoring', overrides: {} }),
  rehydration: rehydrationPolicySchema.default({
    enabled: true,
    maxArtifactsPerTurn: 3,
    maxTokensPerArtifact: 4000,
    totalBudgetTokens: 8000,
    cooldownTurns: 2,
    autoRehydrateSensitivities: ['public', 'internal'],
  }),
  recall: recallPolicySchema.default({
    enabled: true,
    reserveShare: 1,
    topK: 4,
    minScore: 1,
    fillFreeRoom: true,
    freeRoomTopK: 24,
    placement: 'auto',
    appendTurnShare: 0.1,
    appendWithinHighWater: false,
    appendKeepsBasisTurn: false,
    appendBasisWithinHighWater: 0.5,
    appendCommitWhenLeftOut: false,
    appendMovedShare: 0.5,
    appendRestartWithinHighWater: 1.25,
    gate: 'auto',
    quotedHits: 'skip',
  }),
  /**
   * When Compactor's own tools (`read_artifact`, `search_history`) are in the request (ADR-0141):
   * `stable`, from the first request of a thread that may need them, in a fixed place after the
   * caller's tools, so a compaction never changes the request's first bytes; `on-demand`, only once
   * the plan needs them (core's `compactorToolNames` is the rule).
   */
  compactorTools: z.enum(['stable', 'on-demand']).default('stable'),
});

/**
 * Per-thread compaction policy. Every field has a default, so `{}` is a valid policy; a `preset`
 * expands to that preset's fields first. `version` participates in summary cache keys: bump it when
 * a change should re-summarize.
 */
export const compactionPolicySchema = z.preprocess(expandPolicyPreset, compactionPolicyFieldsSchema);
/**
 * A partial policy (a thread's creation event, a request body, a policy file) with its preset
 * expanded first. Expansion has to come first: zod fills a partial's defaults, and filled-in defaults
 * would otherwise count as explicit fields and override every field of the preset.
 */
export const partialPolicySchema = z.preprocess(expandPolicyPreset, compactionPolicyFieldsSchema.partial());
/** A parsed compaction policy: every field filled in. */
export type CompactionPolicy = z.infer<typeof compactionPolicyFieldsSchema>;
/** A compaction policy as written: every field optional. */
export type CompactionPolicyInput = z.input<typeof compactionPolicyFieldsSchema>;

/**
 * Parse a compaction policy, filling in every default.
 *
 * @param input - The policy as written; undefined or null is `{}`.
 * @returns The complete policy.
 * @throws ZodError when a field is invalid.
 */
export function parsePolicy(input: unknown = {}): CompactionPolicy {
  return compactionPolicySchema.parse(input ?? {});
}

/**
 * The policy as it applies to a window of `contextWindow` tokens. The defaults are sized for large
 * windows (a 16k output reserve, 20k recent tokens); on an 8k chat model they would leave nothing
 * to compact, so every absolute size is capped at a share of the window. Large windows are unaffected.
 *
 * @param policy - The parsed policy.
 * @param contextWindow - The model's window.
 * @returns The policy with its sizes capped.
 */
export function policyForWindow(policy: CompactionPolicy, contextWindow: number): CompactionPolicy {
  const share = (fraction: number) => Math.max(1, Math.floor(contextWindow * fraction));
  return {
    ...policy,
    outputReserveTokens: Math.min(policy.outputReserveTokens, share(0.25)),
    keepRecentTokens: Math.min(policy.keepRecentTokens, share(policy.keepRecentTokensShare)),
    // A window kept by tokens is a recent tail too, capped alike (ADR-0186).
    mode:
      policy.mode.kind === 'recursive-summarization' && policy.mode.maxTokensToKeep !== undefined
        ? { ...policy.mode, maxTokensToKeep: Math.min(policy.mode.maxTokensToKeep, share(0.25)) }
        : policy.mode,
    keepUserTokens: Math.min(policy.keepUserTokens, share(0.15)),
    keepUserInstructionTokens: Math.min(policy.keepUserInstructionTokens, share(0.1)),
    rehydrationReserveTokens: Math.min(policy.rehydrationReserveTokens, share(0.05)),
    safetyBufferTokens: Math.min(policy.safetyBufferTokens, share(0.02)),
    clearAtLeastTokens: Math.min(policy.clearAtLeastTokens, share(0.05)),
    externalizeThresholdTokens: Math.min(policy.externalizeThresholdTokens, Math.max(200, share(0.05))),
  };
}
