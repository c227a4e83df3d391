import type { SummarizeRequest } from '../ports/summarizer.js';
import type { CompactionPolicy } from '../schemas/policy.js';

/**
 * What a thread's policy says about every summarizer call, for the ladder's summarize rung and
 * recursive summarization alike: the output bound and whether a failing model may fall back.
 *
 * @param policy - The thread's policy.
 * @returns The request fields (none when the policy keeps the defaults).
 */
export function summaryCallSettings(
  policy: Pick<CompactionPolicy, 'summarizerMaxOutputTokens' | 'onSummaryFailure'>,
): Pick<SummarizeRequest, 'maxOutputTokens' | 'fallback'> {
  return {
    ...(policy.summarizerMaxOutputTokens !== undefined
      ? { maxOutputTokens: policy.summarizerMaxOutputTokens }
      : {}),
    ...(policy.onSummaryFailure === 'leave-unchanged' ? { fallback: false } : {}),
  };
}
