import { isTurnStart, type ThreadMessage, type ToolResultPart } from '@compactor/core';
import type { Baseline, BaselineInput } from './baseline.js';
import { dropOldestUntilFits } from './drop-oldest.js';
import { type BaselineResult, renderSelection, resultOf } from './render-selection.js';

/** OpenCode's constants (packages/opencode/src/session/compaction.ts), made for a ~200k window. */
export const OPENCODE_PRUNE_PROTECT = 40_000;
export const OPENCODE_PRUNE_MINIMUM = 20_000;
export const OPENCODE_REFERENCE_WINDOW = 200_000;
/** Tools OpenCode never prunes. */
const PROTECTED_TOOLS = new Set(['skill']);
/** What OpenCode sends in place of a pruned tool output (message-v2.ts toModelMessages). */
export const OPENCODE_CLEARED_TEXT = '[Old tool result content cleared]';

/**
 * OpenCode's thresholds scaled to the ceiling: 40k/20k are 20%/10% of the ~200k window they were
 * set for, so smaller ceilings get the same shares (never more than the originals).
 */
export function openCodeThresholds(ceiling: number): { protect: number; minimum: number } {
  const scale = Math.min(1, ceiling / OPENCODE_REFERENCE_WINDOW);
  return {
    protect: Math.floor(OPENCODE_PRUNE_PROTECT * scale),
    minimum: Math.floor(OPENCODE_PRUNE_MINIMUM * scale),
  };
}

function outputText(part: ToolResultPart): string {
  return typeof part.content === 'string' ? part.content : JSON.stringify(part.content);
}

/**
 * OpenCode's prune: walking back from the end, past the last two user turns, add up tool output
 * tokens; every output once the total passes PROTECT is prunable, and they are pruned only when
 * more than MINIMUM tokens would go. Returns the ids of the tool messages to clear.
 */
export function openCodePrunable(
  messages: readonly ThreadMessage[],
  countText: (text: string) => number,
  thresholds: { protect: number; minimum: number },
): Set<string> {
  let turns = 0;
  let total = 0;
  let pruned = 0;
  const toPrune: string[] = [];
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index]!;
    if (isTurnStart(message)) turns += 1;
    if (turns < 2 || message.role !== 'tool') continue;
    const results = message.content.filter((part): part is ToolResultPart => part.type === 'tool_result');
    if (results.some((part) => PROTECTED_TOOLS.has(part.toolName))) continue;
    const estimate = results.reduce((sum, part) => sum + countText(outputText(part)), 0);
    total += estimate;
    if (total > thresholds.protect) {
      pruned += estimate;
      toPrune.push(message.id);
    }
  }
  return pruned > thresholds.minimum ? new Set(toPrune) : new Set();
}

function cleared(message: ThreadMessage): ThreadMessage {
  return {
    ...message,
    content: message.content.map((part) =>
      part.type === 'tool_result' ? { ...part, content: OPENCODE_CLEARED_TEXT, keyFields: {} } : part,
    ),
  };
}

/**
 * OpenCode-style prune-old-tool-outputs-then-truncate: prune as OpenCode does (thresholds scaled to
 * the ceiling), then, since pruning alone may not fit, drop the oldest whole turns until it does.
 * Calls keep their (cleared) results, so tool pairs stay valid.
 */
export const openCodePruneBaseline: Baseline = {
  name: 'opencode-prune',
  source: 'OpenCode SessionCompaction.prune (reimplemented; no package) + drop oldest turns',
  async run(input: BaselineInput): Promise<BaselineResult> {
    const thresholds = openCodeThresholds(input.ceiling);
    const prunable = openCodePrunable(
      input.thread.messages,
      (text) => input.tokenizer.count(text),
      thresholds,
    );
    const afterPrune = input.thread.messages.map((message) =>
      prunable.has(message.id) ? cleared(message) : message,
    );
    const selection = dropOldestUntilFits(afterPrune, {
      cutAt: 'turn-start',
      fits: (candidate) => renderSelection(input, candidate).tokens <= input.ceiling,
    });
    const measured = renderSelection(input, selection);
    const kept = selection.filter((message) => !prunable.has(message.id));
    return resultOf(
      measured,
      kept.map((message) => message.id),
      [
        `protect ${thresholds.protect}, minimum ${thresholds.minimum}: pruned ${prunable.size} tool outputs`,
        `dropped ${afterPrune.length - selection.length} messages to fit`,
      ],
      selection,
    );
  },
};
