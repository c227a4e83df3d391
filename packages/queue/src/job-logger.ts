import type { Logger } from '@compactor/core';

/** A logger that adds fixed fields (job id, tenant, thread, attempt) to every entry. */
export function loggerWithFields(logger: Logger, fields: Record<string, unknown>): Logger {
  return {
    debug: (details, message) => logger.debug({ ...fields, ...details }, message),
    info: (details, message) => logger.info({ ...fields, ...details }, message),
    warn: (details, message) => logger.warn({ ...fields, ...details }, message),
    error: (details, message) => logger.error({ ...fields, ...details }, message),
  };
}
