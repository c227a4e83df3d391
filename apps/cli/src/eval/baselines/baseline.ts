// apps/cli/src/eval/baselines/baseline.ts
import type { ProviderName, Thread, ThreadMessage, Tokenizer } from '@compactor/core';
export interface BaselineInput {
  /** The whole transcript, folded (the baseline decides what to keep). */
  thread: Thread;
  /** Tokens the request may use in all (the same ceiling our renderer gets). */
  ceiling: number;
  provider: ProviderName;
  tokenizer: Tokenizer;
  system: string;
}
export interface BaselineOutput {
  /** The provider request the baseline would send (messages in the provider's format). */
  request: unknown;
  /** Message ids of the thread whose content the request still carries verbatim (for probe retention). */
  keptMessageIds: string[];
  /**
   * The messages the request carries, edits included (pruned tool outputs), in order: what the
   * question-conditioned evals append a new turn to. Absent: the kept messages as they are.
   */
  sent?: ThreadMessage[];
}
export interface Baseline {
  name: string;
  /** The package and function it runs, e.g. "@langchain/core trimMessages". */
  source: string;
  run(input: BaselineInput): Promise<BaselineOutput>;
}
