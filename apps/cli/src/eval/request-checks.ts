import type { ProviderName } from '@compactor/core';
import { validateProviderRequest } from '@compactor/render/validate';
import type { ProviderTokenizer } from '@compactor/tokenizer';

export interface RequestChecks {
  requestTokens: number;
  withinBudget: boolean;
  valid: boolean;
  validationErrors: string[];
}

/**
 * Adherence counted independently of whoever built the request (`countRequest` on the request
 * itself), and validity by the provider validator. A missing request fails both.
 */
export function checkRequest(
  request: unknown,
  provider: ProviderName,
  tokenizer: ProviderTokenizer,
  ceiling: number,
): RequestChecks {
  if (request === null || request === undefined)
    return { requestTokens: 0, withinBudget: false, valid: false, validationErrors: ['no request'] };
  let requestTokens: number;
  try {
    requestTokens = tokenizer.countRequest(request as never, provider);
  } catch (error) {
    return {
      requestTokens: 0,
      withinBudget: false,
      valid: false,
      validationErrors: [`uncountable request: ${error instanceof Error ? error.message : String(error)}`],
    };
  }
  const validation = validateProviderRequest(provider, request);
  return {
    requestTokens,
    withinBudget: requestTokens <= ceiling,
    valid: validation.valid,
    validationErrors: validation.errors.slice(0, 5),
  };
}

/** Whole-transcript tokens over request tokens (1 when nothing was cut). */
export function compressionRatio(transcriptTokens: number, requestTokens: number): number {
  return requestTokens > 0 ? transcriptTokens / requestTokens : 0;
}
