import {
  collectKeyFields,
  resolveToolDurability,
  type SummaryOpenItem,
  type SummaryToolOutcome,
  stableStringify,
  type ThreadMessage,
  type ToolDurabilityPolicy,
} from '@compactor/core';
import { clip } from '../text.js';
import { isLookingCommand, searchPatternsOf } from './shell-commands.js';

const SHELL_TOOLS = /^(bash|shell|sh|exec|run|run_command|terminal|execute_command|command)$/i;

export interface ToolOutcomeExtraction {
  outcomes: SummaryToolOutcome[];
  openItems: SummaryOpenItem[];
  /** What the successful searching commands (which have no line) looked for, unique, in order (ADR-0402). */
  searches: string[];
}

export interface ToolOutcomeOptions {
  durability: ToolDurabilityPolicy;
  maxFailures: number;
  maxCommands: number;
  /** Lines kept after grouping: unresolved failures first, then the newest groups. */
  maxOutcomes: number;
}

function firstLine(content: unknown): string {
  const text = typeof content === 'string' ? content : JSON.stringify(content);
  const line = text.split('\n').find((candidate) => candidate.trim().length > 0) ?? '';
  return clip(line, 200);
}

/**
 * Tool outcomes worth carrying forward: every result with key fields (copied structurally),
 * the latest failures with whether a later call of the same tool succeeded, and the latest
 * shell commands with their outcomes (a command that only looked and succeeded is left out, like a
 * file read). Unresolved failures become open items, the newest first.
 */
export function extractToolOutcomes(
  messages: readonly ThreadMessage[],
  options: ToolOutcomeOptions,
): ToolOutcomeExtraction {
  const inputs = new Map<string, unknown>();
  for (const message of messages) {
    for (const part of message.content) if (part.type === 'tool_call') inputs.set(part.id, part.input);
  }
  // A call's command is asked for up to three times (its target, its line, its failure): clipped once (ADR-0405).
  const clippedCommands = new Map<string, string | undefined>();
  const commandOf = (toolCallId: string | undefined): string | undefined => {
    if (toolCallId === undefined) return undefined;
    if (clippedCommands.has(toolCallId)) return clippedCommands.get(toolCallId);
    const input = inputs.get(toolCallId);
    const command =
      typeof input === 'object' &&
      input !== null &&
      typeof (input as Record<string, unknown>).command === 'string'
        ? clip((input as Record<string, string>).command!, 160)
        : undefined;
    clippedCommands.set(toolCallId, command);
    return command;
  };
  const withKeyFields: SummaryToolOutcome[] = [];
  const failures: Array<SummaryToolOutcome & { index: number }> = [];
  const commands: SummaryToolOutcome[] = [];
  const searches = new Set<string>();
  const lastOutcomeByTool = new Map<string, { outcome: string; index: number }>();
  /** The newest success per call target (tool and command or key fields): a failure it follows is fixed. */
  const lastSuccessByTarget = new Map<string, number>();
  const targetOf = (toolName: string, toolCallId: string, keyFields: Record<string, unknown>) =>
    `${toolName}\u0000${commandOf(toolCallId) ?? stableStringify(keyFields)}`;
  /** Where each call's result is in the log: the lines are grouped in log order. */
  const positionOf = new Map<string, number>();
  let index = 0;
  for (const message of messages) {
    for (const part of message.content) {
      if (part.type !== 'tool_result') continue;
      index += 1;
      positionOf.set(part.toolCallId, index);
      const resolved = resolveToolDurability(part, options.durability);
      const keyFields = collectKeyFields(part, resolved.mustPreserveFields);
      const base: SummaryToolOutcome = {
        toolName: part.toolName,
        toolCallId: part.toolCallId,
        outcome: part.outcome,
        keyFields,
      };
      lastOutcomeByTool.set(part.toolName, { outcome: part.outcome, index });
      if (part.outcome === 'success')
        lastSuccessByTarget.set(targetOf(part.toolName, part.toolCallId, keyFields), index);
      if (Object.keys(keyFields).length > 0) withKeyFields.push(base);
      if (part.outcome === 'failure')
        failures.push({ ...base, errorMessage: firstLine(part.content), index });
      if (SHELL_TOOLS.test(part.toolName)) {
        const command = commandOf(part.toolCallId);
        // A command that only looked and succeeded is like a file read: no line of its own (ADR-0271);
        // what it searched for is kept as a name (ADR-0402).
        if (command && part.outcome === 'success' && isLookingCommand(command))
          for (const pattern of searchPatternsOf(command)) searches.add(pattern);
        else if (command) commands.push({ ...base, keyFields: { ...keyFields, command } });
      }
    }
  }
  const openItems: SummaryOpenItem[] = [];
  // Fixed when the tool's last call succeeded, or a later call on the same target did (the same
  // command run again, the same file): another tool's failure after it does not reopen it.
  const isResolvedLater = (failure: SummaryToolOutcome, failureIndex: number) => {
    const last = lastOutcomeByTool.get(failure.toolName);
    const sameTarget = lastSuccessByTarget.get(
      targetOf(failure.toolName, failure.toolCallId ?? '', failure.keyFields),
    );
    return (
      (last !== undefined && last.index > failureIndex && last.outcome === 'success') ||
      (sameTarget !== undefined && sameTarget > failureIndex)
    );
  };
  const recentFailures = failures.slice(-options.maxFailures).map(({ index: failureIndex, ...failure }) => {
    const resolvedLater = isResolvedLater(failure, failureIndex);
    if (!resolvedLater) {
      const command = commandOf(failure.toolCallId);
      openItems.push({
        description: `Unresolved ${failure.toolName} failure${command ? ` (${command})` : ''}: ${failure.errorMessage ?? 'no message'}`,
        priority: 'high',
      });
    }
    return {
      ...failure,
      errorMessage: `${failure.errorMessage ?? ''}${resolvedLater ? ' (a later call succeeded)' : ''}`,
    };
  });
  // A failed command older than the recent failures has no error line; when a later call fixed it
  // (a looking command's success has no line of its own to group it under), its line must still say
  // so, or the summary reports as failing what was fixed.
  const withRecentFailure = new Set(recentFailures.map((failure) => failure.toolCallId));
  const olderFailures = new Map(failures.map((failure) => [failure.toolCallId, failure]));
  const keptCommands = commands.slice(-options.maxCommands).map((command) => {
    const failure = olderFailures.get(command.toolCallId);
    if (failure === undefined || withRecentFailure.has(command.toolCallId)) return command;
    if (!isResolvedLater(failure, failure.index)) return command;
    return { ...command, errorMessage: `${failure.errorMessage ?? ''} (a later call succeeded)` };
  });
  const byCall = new Map<string, SummaryToolOutcome>();
  for (const outcome of [...withKeyFields, ...recentFailures, ...keptCommands]) {
    const key = outcome.toolCallId ?? `${outcome.toolName}:${byCall.size}`;
    const previous = byCall.get(key);
    byCall.set(
      key,
      previous
        ? { ...previous, ...outcome, keyFields: { ...previous.keyFields, ...outcome.keyFields } }
        : outcome,
    );
  }
  // Grouped in log order, so a group's line is its last call's (a failure found before the commands
  // were gathered is not overwritten by an earlier success of the same command).
  const inLogOrder = [...byCall.values()].sort(
    (left, right) =>
      (positionOf.get(left.toolCallId ?? '') ?? 0) - (positionOf.get(right.toolCallId ?? '') ?? 0),
  );
  // Newest first: the failure the agent was stuck on last is the one to keep when a budget thins the list.
  return {
    outcomes: groupOutcomes(inLogOrder, options.maxOutcomes),
    openItems: openItems.reverse(),
    searches: [...searches],
  };
}

/**
 * Repeated calls on one file or command become one line (ADR-0160): grouped by tool and key fields,
 * the line is the last call's (its outcome and error), counted. Past `maxOutcomes` lines, failures
 * that no later call of the group resolved are kept first, then the newest groups, in log order.
 */
function groupOutcomes(outcomes: readonly SummaryToolOutcome[], maxOutcomes: number): SummaryToolOutcome[] {
  const groups = new Map<string, { outcome: SummaryToolOutcome; count: number; last: number }>();
  outcomes.forEach((outcome, index) => {
    // Calls without key fields are not the same call just because their tool is: kept apart.
    const key =
      Object.keys(outcome.keyFields).length === 0
        ? `call\u0000${outcome.toolCallId ?? index}`
        : `${outcome.toolName}\u0000${stableStringify(outcome.keyFields)}`;
    const previous = groups.get(key);
    groups.set(key, { outcome, count: (previous?.count ?? 0) + 1, last: index });
  });
  const lines = [...groups.values()].map(({ outcome, count, last }) => ({
    outcome: count > 1 ? { ...outcome, count } : outcome,
    last,
  }));
  if (lines.length <= maxOutcomes) return lines.map((line) => line.outcome);
  const ranked = [...lines].sort(
    (a, b) =>
      Number(b.outcome.outcome === 'failure') - Number(a.outcome.outcome === 'failure') || b.last - a.last,
  );
  const kept = new Set(ranked.slice(0, maxOutcomes));
  return lines.filter((line) => kept.has(line)).map((line) => line.outcome);
}
