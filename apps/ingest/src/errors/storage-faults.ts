/**
 * Operating-system errors that mean "storage cannot take writes right now": a full disk or quota,
 * or a filesystem mounted read-only. They are the operator's to fix, not a bug: the API answers 503
 * with Retry-After, and `/readyz` reports not ready until a write succeeds again (ADR-0048).
 */
const STORAGE_UNAVAILABLE_CODES = new Set(['ENOSPC', 'EDQUOT', 'EROFS']);

/** The storage fault code of `error` or of any error in its `cause` chain, else undefined. */
export function storageFaultCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current !== null && typeof current === 'object'; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && STORAGE_UNAVAILABLE_CODES.has(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
