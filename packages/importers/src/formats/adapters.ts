import type { TranscriptFormat } from '../types.js';
import { aiderAdapter } from './aider.js';
import { anthropicAdapter } from './anthropic.js';
import { claudeCodeAdapter } from './claude-code.js';
import type { FormatAdapter } from './format-adapter.js';
import { locomoAdapter } from './locomo.js';
import { openAiAdapter } from './openai.js';
import { piAdapter } from './pi.js';
import { sweAgentAdapter } from './swe-agent.js';
import { tauBenchAdapter } from './tau-bench.js';

export const adapters: Record<TranscriptFormat, FormatAdapter> = {
  pi: piAdapter,
  'claude-code': claudeCodeAdapter,
  'swe-agent': sweAgentAdapter,
  'tau-bench': tauBenchAdapter,
  aider: aiderAdapter,
  locomo: locomoAdapter,
  openai: openAiAdapter,
  anthropic: anthropicAdapter,
};

/**
 * The order detection tries formats in: whole-JSON formats with distinctive shapes first,
 * Anthropic before OpenAI (an OpenAI request is the fallback for plain role/content lists),
 * then JSON Lines, then Markdown.
 */
export const detectionOrder: readonly TranscriptFormat[] = [
  'swe-agent',
  'tau-bench',
  'locomo',
  'anthropic',
  'openai',
  'pi',
  'claude-code',
  'aider',
];

/** The default model of each format, for documentation and callers. */
export const defaultModels: Record<TranscriptFormat, string> = Object.fromEntries(
  Object.entries(adapters).map(([format, adapter]) => [format, adapter.defaultModel]),
) as Record<TranscriptFormat, string>;
