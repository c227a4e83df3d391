import {
  collectKeyFields,
  resolveToolDurability,
  type SummaryOpenItem,
  type SummaryToolOutcome,
  type ThreadMessage,
  type ToolDurabilityPolicy,
} from '@compactor/core';
import { clip } from '../text.js';

const SHELL_TOOLS = /^(bash|shell|sh|exec|run|run_command|terminal|execute_command|command)$/i;

export interface ToolOutcomeExtraction {
  outcomes: SummaryToolOutcome[];
  openItems: SummaryOpenItem[];
}

export interface ToolOutcomeOptions {
  durability: ToolDurabilityPolicy;
  maxFailures: number;
  maxCommands: number;
}

function firstLine(content: unknown): string {
  const text = typeof content === 'string' ? content : JSON.stringify(content);
  const line = text.split('\n').find((candidate) => candidate.trim().length > 0) ?? '';
  return clip(line, 200);
}

/**
 * Tool outcomes worth carrying forward: every result with key fields (copied structurally),
 * the latest failures with whether a later call of the same tool succeeded, and the latest
 * shell commands with their outcomes. Unresolved failures become open items.
 */
export function extractToolOutcomes(
  messages: readonly ThreadMessage[],
  options: ToolOutcomeOptions,
): ToolOutcomeExtraction {
  const inputs = new Map<string, unknown>();
  for (const message of messages) {
    for (const part of message.content) if (part.type === 'tool_call') inputs.set(part.id, part.input);
  }
  const withKeyFields: SummaryToolOutcome[] = [];
  const failures: Array<SummaryToolOutcome & { index: number }> = [];
  const commands: SummaryToolOutcome[] = [];
  const lastOutcomeByTool = new Map<string, { outcome: string; index: number }>();
  let index = 0;
  for (const message of messages) {
    for (const part of message.content) {
      if (part.type !== 'tool_result') continue;
      index += 1;
      const resolved = resolveToolDurability(part, options.durability);
      const keyFields = collectKeyFields(part, resolved.mustPreserveFields);
      const base: SummaryToolOutcome = {
        toolName: part.toolName,
        toolCallId: part.toolCallId,
        outcome: part.outcome,
        keyFields,
      };
      lastOutcomeByTool.set(part.toolName, { outcome: part.outcome, index });
      if (Object.keys(keyFields).length > 0) withKeyFields.push(base);
      if (part.outcome === 'failure')
        failures.push({ ...base, errorMessage: firstLine(part.content), index });
      if (SHELL_TOOLS.test(part.toolName)) {
        const input = inputs.get(part.toolCallId);
        const command =
          typeof input === 'object' &&
          input !== null &&
          typeof (input as Record<string, unknown>).command === 'string'
            ? clip((input as Record<string, string>).command!, 160)
            : undefined;
        if (command) commands.push({ ...base, keyFields: { ...keyFields, command } });
      }
    }
  }
  const openItems: SummaryOpenItem[] = [];
  const recentFailures = failures.slice(-options.maxFailures).map(({ index: failureIndex, ...failure }) => {
    const last = lastOutcomeByTool.get(failure.toolName);
    const resolvedLater = last !== undefined && last.index > failureIndex && last.outcome === 'success';
    if (!resolvedLater) {
      openItems.push({
        description: `Unresolved ${failure.toolName} failure: ${failure.errorMessage ?? 'no message'}`,
        priority: 'high',
      });
    }
    return {
      ...failure,
      errorMessage: `${failure.errorMessage ?? ''}${resolvedLater ? ' (a later call succeeded)' : ''}`,
    };
  });
  const byCall = new Map<string, SummaryToolOutcome>();
  for (const outcome of [...withKeyFields, ...recentFailures, ...commands.slice(-options.maxCommands)]) {
    const key = outcome.toolCallId ?? `${outcome.toolName}:${byCall.size}`;
    const previous = byCall.get(key);
    byCall.set(
      key,
      previous
        ? { ...previous, ...outcome, keyFields: { ...previous.keyFields, ...outcome.keyFields } }
        : outcome,
    );
  }
  return { outcomes: [...byCall.values()], openItems };
}
