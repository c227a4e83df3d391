import { availableForMessages, budgetFromRemainderThreshold } from '../budget/token-budget.js';
import type { ThreadMessage } from '../thread/thread.js';
import { countUserTurns } from '../thread/turns.js';
import type { RemainderThreshold, TriggerConfig } from './trigger-config.js';

/** What a trigger decides on. */
export interface TriggerContext {
  messages: readonly ThreadMessage[];
  /** Tokens the conversation takes now, as the renderer would count it under the current plan. */
  messageTokens: number;
  contextWindow: number;
  /** The planner's target for message tokens (soft threshold minus every overhead and reserve). */
  targetTokens?: number;
  /** True when a person or API call asked for compaction. */
  manual?: boolean;
}

/** Whether a trigger fired, and why, for logs and the inspector. */
export interface TriggerDecision {
  fire: boolean;
  /** The trigger's name. */
  trigger: string;
  /** The figures compared, in words. */
  reason: string;
  /** The decisions of a combinator's triggers. */
  children?: TriggerDecision[];
}

/** Decides when a thread is compacted (ADR-0010). */
export interface CompactionTrigger {
  readonly name: string;
  /**
   * @param context - The thread's messages, tokens and target.
   * @returns Whether it fires, and why.
   */
  evaluate(context: TriggerContext): TriggerDecision;
}

/**
 * The `seed-003` preset's threshold for a window: (window − system − output − safety) × percent (ADR-0184).
 *
 * @param remainder - The reserves and the percentage.
 * @param contextWindow - The thread's window.
 * @returns The message tokens at which it fires.
 */
export function remainderThreshold(remainder: RemainderThreshold, contextWindow: number): number {
  return availableForMessages(
    budgetFromRemainderThreshold({ modelContextLimit: contextWindow, ...remainder }),
  );
}

/**
 * Fires at or above an absolute token count, or a fraction of the context window.
 *
 * @param options - The threshold in tokens, or the fraction of the window.
 * @returns The trigger.
 */
export function tokenCountTrigger(
  options: { threshold: number } | { fraction: number } | { remainder: RemainderThreshold },
): CompactionTrigger {
  const name =
    'threshold' in options
      ? `tokens>=${options.threshold}`
      : 'fraction' in options
        ? `tokens>=${options.fraction}×window`
        : `tokens>=(window−${options.remainder.systemReserve + options.remainder.outputReserve + options.remainder.safetyBuffer})×${options.remainder.thresholdPercent}`;
  return {
    name,
    evaluate(context) {
      const threshold =
        'threshold' in options
          ? options.threshold
          : 'fraction' in options
            ? Math.floor(context.contextWindow * options.fraction)
            : remainderThreshold(options.remainder, context.contextWindow);
      const fire = context.messageTokens >= threshold;
      return {
        fire,
        // The remainder form is recomputed per window; its decision names the figure it compared.
        trigger: 'remainder' in options ? `tokens>=${threshold}` : name,
        reason: `${context.messageTokens} tokens ${fire ? '>=' : '<'} threshold ${threshold}`,
      };
    },
  };
}

/**
 * Fires when the messages exceed the planner's target: compaction starts exactly when the prompt
 * no longer leaves room for the system prompt, tools, the answer and rehydration. The default,
 * because a fraction of the window ignores the reserves (on a small window it can sit above the
 * renderer's ceiling, so the runtime would have to emergency-fit every call). Without a target in
 * the context it does not fire.
 *
 * @returns The trigger.
 */
export function targetTrigger(): CompactionTrigger {
  return {
    name: 'over-target',
    evaluate(context) {
      if (context.targetTokens === undefined) {
        return { fire: false, trigger: 'over-target', reason: 'no target given' };
      }
      const fire = context.messageTokens > context.targetTokens;
      return {
        fire,
        trigger: 'over-target',
        reason: `${context.messageTokens} tokens ${fire ? '>' : '<='} target ${context.targetTokens}`,
      };
    },
  };
}

/**
 * Fires when there are more than `maxTurns` real, root-level user turns.
 *
 * @param maxTurns - The most turns allowed without compacting.
 * @returns The trigger.
 */
export function turnCountTrigger(maxTurns: number): CompactionTrigger {
  const name = `turns>${maxTurns}`;
  return {
    name,
    evaluate(context) {
      const turns = countUserTurns(context.messages);
      const fire = turns > maxTurns;
      return { fire, trigger: name, reason: `${turns} user turns ${fire ? '>' : '<='} ${maxTurns}` };
    },
  };
}

/**
 * Fires when a person or API call asked for compaction (`context.manual`).
 *
 * @returns The trigger.
 */
export function manualTrigger(): CompactionTrigger {
  return {
    name: 'manual',
    evaluate(context) {
      const fire = context.manual === true;
      return { fire, trigger: 'manual', reason: fire ? 'compaction was requested' : 'no request' };
    },
  };
}

/**
 * Fires when any of its triggers fires.
 *
 * @param triggers - The triggers, all evaluated.
 * @returns The combined trigger.
 */
export function anyOf(...triggers: CompactionTrigger[]): CompactionTrigger {
  const name = `any(${triggers.map((trigger) => trigger.name).join(', ')})`;
  return {
    name,
    evaluate(context) {
      const children = triggers.map((trigger) => trigger.evaluate(context));
      const fired = children.filter((child) => child.fire);
      return {
        fire: fired.length > 0,
        trigger: name,
        reason: fired.length > 0 ? fired.map((child) => child.reason).join('; ') : 'no trigger fired',
        children,
      };
    },
  };
}

/**
 * Fires when all of its triggers fire.
 *
 * @param triggers - The triggers, all evaluated.
 * @returns The combined trigger.
 */
export function allOf(...triggers: CompactionTrigger[]): CompactionTrigger {
  const name = `all(${triggers.map((trigger) => trigger.name).join(', ')})`;
  return {
    name,
    evaluate(context) {
      const children = triggers.map((trigger) => trigger.evaluate(context));
      const idle = children.filter((child) => !child.fire);
      return {
        fire: idle.length === 0,
        trigger: name,
        reason:
          idle.length === 0
            ? children.map((child) => child.reason).join('; ')
            : `not fired: ${idle.map((child) => child.reason).join('; ')}`,
        children,
      };
    },
  };
}

/**
 * The trigger a policy's trigger configuration describes.
 *
 * @param config - The parsed configuration.
 * @returns The trigger (a `tokens` config without a threshold uses 0.85 of the window).
 */
export function buildTrigger(config: TriggerConfig): CompactionTrigger {
  switch (config.kind) {
    case 'target':
      return targetTrigger();
    case 'tokens':
      if (config.threshold !== undefined) return tokenCountTrigger({ threshold: config.threshold });
      if (config.remainder !== undefined) return tokenCountTrigger({ remainder: config.remainder });
      return tokenCountTrigger({ fraction: config.fraction ?? 0.85 });
    case 'turns':
      return turnCountTrigger(config.maxTurns);
    case 'any':
      return anyOf(...config.triggers.map(buildTrigger));
    case 'all':
      return allOf(...config.triggers.map(buildTrigger));
    case 'manual':
      return manualTrigger();
  }
}
