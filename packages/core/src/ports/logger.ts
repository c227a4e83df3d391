/** The logging surface packages use; pino satisfies it, and so does `noopLogger`. */
export interface Logger {
  /**
   * Each level takes structured details first, as pino does.
   *
   * @param details - Structured fields (`err` for an error).
   * @param message - The line's message.
   */
  debug(details: object, message?: string): void;
  /**
   * @param details - Structured fields.
   * @param message - The line's message.
   */
  info(details: object, message?: string): void;
  /**
   * @param details - Structured fields.
   * @param message - The line's message.
   */
  warn(details: object, message?: string): void;
  /**
   * @param details - Structured fields.
   * @param message - The line's message.
   */
  error(details: object, message?: string): void;
}

export const noopLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
};
