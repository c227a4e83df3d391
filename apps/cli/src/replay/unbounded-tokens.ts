import {
  type CompactionPlan,
  type ProviderName,
  type Thread,
  type Tokenizer,
  tokenBudget,
} from '@compactor/core';
import { renderPromptSync } from '@compactor/render';

/** A ceiling no prompt reaches: what the thread costs rendered as it is, with no emergency fit. */
const UNBOUNDED = tokenBudget({
  maxInputTokens: Number.MAX_SAFE_INTEGER,
  safetyBufferTokens: 0,
  rehydrationReserveTokens: 0,
});

/** Tokens of the thread rendered under `plan` (null: the whole transcript as one prompt), nothing cut. */
export function unboundedRender(
  thread: Thread,
  plan: CompactionPlan | null,
  provider: ProviderName,
  tokenizer: Tokenizer,
  system = '',
) {
  return renderPromptSync({
    thread,
    plan,
    system,
    tools: [],
    budget: UNBOUNDED,
    provider,
    tokenizer,
    recall: false,
  });
}
