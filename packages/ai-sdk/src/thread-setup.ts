import type { Compactor } from '@compactor/engine';
import { resolveModelInfo } from '@compactor/tokenizer';

export interface ThreadOptions {
  /** The model the thread is counted for (the tokenizer and default window follow it). Default `claude-sonnet-4-5`. */
  model?: string;
  /** The model's context window; default the model registry's. */
  contextWindow?: number;
}

/** Create the thread on first use; the fixed event id makes every later call a no-op. */
export async function ensureThread(
  compactor: Compactor,
  threadId: string,
  options: ThreadOptions,
): Promise<void> {
  const model = options.model ?? 'claude-sonnet-4-5';
  const contextWindow =
    options.contextWindow ?? resolveModelInfo(model, { contextWindow: options.contextWindow }).contextWindow;
  await compactor.append(threadId, [
    { eventId: 'thread.created', type: 'thread.created', model, contextWindow },
  ]);
}
