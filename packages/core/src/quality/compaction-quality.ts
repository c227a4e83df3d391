import type { Thread } from '../thread/thread.js';

/**
 * The default policy's quality regression metrics (ADR-0195): after a compaction, did the agent have to ask
 * for what it was told before (the canary), how often did it read artifacts back, and did it finish
 * its task. Pure: computed from the thread and the seq the compaction was based on.
 */
export interface CompactionQualityMetrics {
  /** Turns since the compaction (null when nothing was compacted). */
  turnsSinceCompaction: number | null;
  /** Whether any assistant message after the compaction asked for context it should have had. */
  agentAskedForContext: boolean;
  /** How many assistant messages after the compaction asked for context. */
  askedForContextCount: number;
  /** Explicit `read_artifact` calls after the compaction, plus the automatic rehydrations given. */
  rehydrationRequests: number;
  /** The caller's oracle: did the task end correctly (undefined when not judged). */
  taskCompletionSuccess: boolean | undefined;
}

/**
 * Phrases with which an assistant asks to be told again what it once knew ("What was the user's
 * budget again?"). Deliberately narrow: a false alarm costs an investigation, a miss hides a
 * regression the task-completion oracle still catches.
 */
export const ASKED_FOR_CONTEXT_PATTERNS: readonly RegExp[] = [
  /\bwhat (?:was|were|is|are) (?:the|your|our|that)\b[^?]*\bagain\b/i,
  /\b(?:could|can|would) you (?:remind me|repeat|tell me again|share (?:it|that) again)\b/i,
  /\bremind me\b/i,
  /\bi (?:no longer|don'?t|do not) (?:have|see|remember|recall)\b[^.?!]*\b(?:earlier|before|previous|original)\b/i,
  /\b(?:i (?:have|had) )?lost (?:track|the context)\b/i,
];

/**
 * Whether a text asks for context the agent should already have.
 *
 * @param text - An assistant message's text.
 * @returns True when one of {@link ASKED_FOR_CONTEXT_PATTERNS} matches.
 */
export function askedForContext(text: string): boolean {
  return ASKED_FOR_CONTEXT_PATTERNS.some((pattern) => pattern.test(text));
}

/** Where the compaction was, and what the caller knows besides the thread. */
export interface CompactionQualityOptions {
  /** The seq the (first) compaction's plan was based on; messages after it are judged. */
  compactedAtSeq: number | null;
  /** The task's oracle, when the caller has one. */
  taskCompletionSuccess?: boolean;
  /** Automatic rehydrations performed after the compaction (from the lifecycle log). */
  automaticRehydrations?: number;
  /** @defaultValue `'read_artifact'` */
  readArtifactToolName?: string;
}

/**
 * The quality metrics of a thread after a compaction.
 *
 * @param thread - The folded thread.
 * @param options - Where the compaction was, and the caller's oracle and counts.
 * @returns The metrics.
 */
export function compactionQualityMetrics(
  thread: Thread,
  options: CompactionQualityOptions,
): CompactionQualityMetrics {
  const { compactedAtSeq } = options;
  const readArtifact = options.readArtifactToolName ?? 'read_artifact';
  if (compactedAtSeq === null) {
    return {
      turnsSinceCompaction: null,
      agentAskedForContext: false,
      askedForContextCount: 0,
      rehydrationRequests: 0,
      taskCompletionSuccess: options.taskCompletionSuccess,
    };
  }
  const before = thread.messages.filter((message) => message.seq <= compactedAtSeq);
  const after = thread.messages.filter((message) => message.seq > compactedAtSeq);
  const compactedTurn = before.at(-1)?.turn ?? 0;
  const lastTurn = thread.messages.at(-1)?.turn ?? compactedTurn;
  let asked = 0;
  let reads = 0;
  for (const message of after) {
    if (message.role !== 'assistant') continue;
    const text = message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
    if (askedForContext(text)) asked += 1;
    reads += message.content.filter((part) => part.type === 'tool_call' && part.name === readArtifact).length;
  }
  return {
    turnsSinceCompaction: lastTurn - compactedTurn,
    agentAskedForContext: asked > 0,
    askedForContextCount: asked,
    rehydrationRequests: reads + (options.automaticRehydrations ?? 0),
    taskCompletionSuccess: options.taskCompletionSuccess,
  };
}
