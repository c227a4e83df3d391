import { actionFor, type CompactionPlan, normalizePlan } from '@compactor/core';
import type { Plan } from './api.js';

export type MessageAction = ReturnType<typeof actionFor>;

/**
 * What the current plan does with each message: core's own precedence rules (drop > externalize >
 * summarize > clear > abridge > include), so the page shows what the renderer does. A plan written
 * before abridge records existed has none.
 */
export function planActions(plan: Plan | null): (messageId: string) => MessageAction {
  if (!plan) return () => 'include';
  const normalized = normalizePlan({ abridgements: [], ...plan } as unknown as CompactionPlan);
  return (messageId) => actionFor(normalized, messageId);
}
