import type {
  ArtifactStore,
  CompactionPlan,
  CurrentDeterminism,
  Logger,
  ProviderName,
  SecurityContext,
  Thread,
  TokenBudget,
  Tokenizer,
  ToolDefinition,
} from '@compactor/core';
import type { EmergencyFitReport } from './budget/emergency-fit.js';
import type { RenderCache } from './cache/render-cache.js';
import type { OpaqueReport } from './plan/opaque-parts.js';
import type { SourceCounts } from './plan/slots.js';
import type { RequestByProvider } from './providers/request-types.js';
import type { RecallReport } from './recall/render-recall.js';
import type {
  RehydrationEvent,
  RehydrationOptions,
  RehydrationState,
} from './rehydration/rehydration-types.js';

/** Everything one render call needs. */
export interface RenderInput<P extends ProviderName = ProviderName> {
  /** The folded thread (core's `foldThread`). */
  thread: Thread;
  /** The current plan, or null when none was committed. */
  plan: CompactionPlan | null;
  system: string;
  tools: readonly ToolDefinition[];
  /** Render's hard ceiling is maxInputTokens − outputReserveTokens − safetyBufferTokens. */
  budget: TokenBudget;
  provider: P;
  tokenizer: Tokenizer;
  artifactStore?: ArtifactStore;
  securityContext?: SecurityContext;
  rehydration?: RehydrationOptions;
  /**
   * Replayable tool results' sources as the runtime's `capture_determinism` hooks read them
   * (ADR-0193): the emergency fit clears a replayable result only when this proves it unchanged.
   * @defaultValue none: replayable results are never cleared by the emergency fit
   */
  currentDeterminism?: CurrentDeterminism;
  /**
   * Current turn number.
   * @defaultValue the thread's last turn
   */
  turn?: number;
  /** Memo kept by the runtime between calls; without one every render starts cold. */
  cache?: RenderCache;
  /**
   * Render a subagent's own conversation (messages with this `subagentId`).
   * @defaultValue the root agent
   */
  agent?: string;
  /**
   * Anthropic `cache_control` breakpoints.
   * @defaultValue true
   */
  promptCaching?: boolean;
  /**
   * What render-time recall searches the compacted messages for (ADR-0111); default the newest user
   * turn plus a pending tool call (`recallQuery`). Recall follows the thread policy's `recall`.
   */
  query?: string;
  /**
   * Allow Compactor's `read_artifact` tool in the request when `tools` lacks it: from the first
   * request when the thread's policy may externalize (`compactorTools: 'stable'`, the default), or
   * once the plan externalizes (`'on-demand'`); core's `compactorToolNames` decides (ADR-0141).
   * False never adds it (the planner's measurement counts messages only).
   * @defaultValue true
   */
  addReadArtifactTool?: boolean;
  /**
   * Add the `search_history` tool (ADR-0163) when the plan compacts something and `tools` lacks it;
   * answer its calls with `handleSearchHistory`.
   * @defaultValue false
   */
  addSearchHistoryTool?: boolean;
  /**
   * `false` renders without recall whatever the policy says: for measurement renders (the planner's,
   * a baseline's) under an unbounded budget, where filling free room (ADR-0162) would search for
   * nothing anyone reads.
   * @defaultValue true
   */
  recall?: boolean;
  logger?: Logger;
}

/** Everything counted, with the tokenizer the caller passed. */
export interface TokenTotals {
  system: number;
  tools: number;
  /** Request-level overhead beyond the messages (priming tokens), when the tokenizer reports one. */
  formatting: number;
  messages: number;
  /** Of `messages`, what the summary stand-ins sent take (the rest is the verbatim conversation and other stand-ins). */
  summary: number;
  rehydration: number;
  /** The recall block (ADR-0111), 0 when none. */
  recall: number;
  total: number;
}

/** What rehydration did in one render, and the state to keep for the next. */
export interface RehydrationReport {
  /** False for `renderPromptSync`, or when disabled by policy. */
  attempted: boolean;
  /** Tokens rehydration could use: min(policy total, budget reserve, room the conversation left). */
  allowance: number;
  tokens: number;
  performed: RehydrationEvent[];
  blocked: RehydrationEvent[];
  /** Persist it and pass it back next time (cooldowns, same-turn re-injection). */
  nextState: RehydrationState;
}

/** What a render did and why: versions, staleness, counts, emergency fit, cache prefix, rehydration. */
export interface RenderReport {
  formatVersion: string;
  provider: ProviderName;
  threadVersion: number;
  planVersion: number | null;
  planBasedOnSeq: number | null;
  /** Messages arrived after the plan was made (they are rendered as they are). */
  stale: boolean;
  messagesAfterPlan: number;
  /** The hard ceiling the total was kept under. */
  ceiling: number;
  turn: number;
  /** What happened to the log's messages (in the rendered agent's view). */
  counts: SourceCounts & { syntheticMessages: number; wireMessages: number };
  /** Set when the request only fit after the emergency fit: the worker should compact. */
  emergencyFit: EmergencyFitReport | null;
  needsCompaction: boolean;
  /**
   * Tokens of the prefix that stays byte-identical while only events are appended and no new plan
   * is committed: tools, system, formatting and the messages up to the plan's `basedOnSeq`.
   */
  stablePrefixTokens: number;
  /** Wire messages (or items) of the request in that prefix, counting OpenAI Chat's system message. */
  stablePrefixMessages: number;
  /** Anthropic `cache_control` breakpoints placed (0 for other providers). */
  cacheBreakpoints: number;
  toolsAdded: string[];
  rehydration: RehydrationReport;
  /** Render-time recall of compacted messages: what came back, why (score, record), tokens. */
  recall: RecallReport;
  /** Providers' opaque parts: sent to their own provider, left out of other formats (ADR-0250). */
  opaque: OpaqueReport;
  /** Plan normalization conflicts, orphan repairs, pending calls, unknown ids, opaque parts left out. */
  warnings: string[];
}

/** A rendered request with its counts and report. */
export interface RenderResult<P extends ProviderName = ProviderName> {
  request: RequestByProvider[P];
  tokens: TokenTotals;
  report: RenderReport;
}
