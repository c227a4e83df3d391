/**
 * Errors are recognised by a marker symbol rather than `instanceof`, so they survive duplicated
 * module copies. Structured cloning keeps only name, message, cause and stack: send `code` and
 * `details` explicitly across a process or worker boundary.
 */
const compactorErrorMarker = Symbol.for('compactor.error');

/** What kind of failure a {@link CompactorError} is; the HTTP layer maps each to a status. */
export type CompactorErrorCode =
  | 'validation'
  | 'not_found'
  | 'concurrency'
  | 'idempotency_conflict'
  | 'integrity'
  | 'access_denied'
  | 'budget_exceeded'
  | 'unknown_model'
  | 'summarizer'
  | 'unavailable';

/** What a {@link CompactorError} carries besides its code and message. */
export interface CompactorErrorOptions {
  cause?: unknown;
  /**
   * Whether trying the same call again may succeed.
   * @defaultValue false
   */
  isRetryable?: boolean;
  /**
   * Structured facts for logs and error envelopes.
   * @defaultValue `{}`
   */
  details?: Record<string, unknown>;
}

/** The base of every error Compactor throws on purpose: a code, a message, and whether to retry. */
export class CompactorError extends Error {
  readonly [compactorErrorMarker] = true;
  readonly code: CompactorErrorCode;
  readonly isRetryable: boolean;
  readonly details: Record<string, unknown>;

  /**
   * @param code - The kind of failure.
   * @param message - What went wrong, for people.
   * @param options - Cause, retryability and details.
   */
  constructor(code: CompactorErrorCode, message: string, options: CompactorErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'CompactorError';
    this.code = code;
    this.isRetryable = options.isRetryable ?? false;
    this.details = options.details ?? {};
  }

  /**
   * Whether a value is a CompactorError, even from another copy of this module.
   *
   * @param error - Anything caught.
   * @returns True when it carries the CompactorError marker.
   */
  static isInstance(error: unknown): error is CompactorError {
    return typeof error === 'object' && error !== null && compactorErrorMarker in error;
  }

  /**
   * Whether a value is a CompactorError with this code.
   *
   * @param error - Anything caught.
   * @param code - The code to test for.
   * @returns True for a CompactorError with `code`.
   */
  static hasCode(error: unknown, code: CompactorErrorCode): error is CompactorError {
    return CompactorError.isInstance(error) && error.code === code;
  }
}

/** One problem with one field of an input. */
export interface FieldIssue {
  /** Dotted path of the field (`events.0.message.role`). */
  path: string;
  message: string;
}

/** The shape of a schema library's issue (zod's `$ZodIssue` fits): where, and what is wrong. */
export interface SchemaIssue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

/**
 * Schema issues as field issues, paths joined with dots (`events.0.message.role`), optionally under
 * a prefix (`query.budget`). The one conversion every package uses, so a path reads the same
 * whichever layer refused the input.
 *
 * @param issues - The schema library's issues.
 * @param prefix - Put in front of every path.
 * @returns One field issue per schema issue.
 */
export function fieldIssuesFrom(issues: readonly SchemaIssue[], prefix?: string | number): FieldIssue[] {
  return issues.map((issue) => ({
    path: [prefix, ...issue.path]
      .filter((part) => part !== undefined && part !== '')
      .map(String)
      .join('.'),
    message: issue.message,
  }));
}

/** Bad input: nothing was changed. Not retryable. */
export class ValidationError extends CompactorError {
  readonly issues: FieldIssue[];
  /**
   * @param message - What is wrong, in a sentence.
   * @param issues - Each bad field.
   * @param options - Cause and details (the issues are added to the details).
   */
  constructor(message: string, issues: FieldIssue[] = [], options: CompactorErrorOptions = {}) {
    super('validation', message, { ...options, details: { ...options.details, issues } });
    this.name = 'ValidationError';
    this.issues = issues;
  }
}

/** The thing asked for does not exist (or the caller may not know it does). */
export class NotFoundError extends CompactorError {
  /**
   * @param what - The kind of thing (`thread`, `artifact`…).
   * @param id - Its id.
   */
  constructor(what: string, id: string) {
    super('not_found', `${what} ${id} was not found`, { details: { what, id } });
    this.name = 'NotFoundError';
  }
}

/** Optimistic concurrency: the caller's expected version is not the current one. Nothing was written. */
export class ConcurrencyError extends CompactorError {
  readonly expectedVersion: number;
  readonly actualVersion: number;
  /**
   * @param what - What was being written.
   * @param expectedVersion - The version the caller based its write on.
   * @param actualVersion - The version stored now.
   */
  constructor(what: string, expectedVersion: number, actualVersion: number) {
    super('concurrency', `${what}: expected version ${expectedVersion} but found ${actualVersion}`, {
      details: { expectedVersion, actualVersion },
    });
    this.name = 'ConcurrencyError';
    this.expectedVersion = expectedVersion;
    this.actualVersion = actualVersion;
  }
}

/** The same client event id was sent again with different content. */
export class IdempotencyConflictError extends CompactorError {
  /** @param eventId - The client event id sent twice. */
  constructor(eventId: string) {
    super('idempotency_conflict', `event ${eventId} was already appended with different content`, {
      details: { eventId },
    });
    this.name = 'IdempotencyConflictError';
  }
}

/** Stored or computed data breaks an invariant: a bug or corruption, never the caller's input. */
export class IntegrityError extends CompactorError {
  /**
   * @param message - Which invariant broke.
   * @param details - The figures that show it.
   */
  constructor(message: string, details: Record<string, unknown> = {}) {
    super('integrity', message, { details });
    this.name = 'IntegrityError';
  }
}

/** A model the registry does not know, without the window, output limit and tokenizer family that describe it. */
export class UnknownModelError extends CompactorError {
  /** @param model - The model id as given. */
  constructor(model: string) {
    super(
      'unknown_model',
      `unknown model "${model}": supply contextWindow, maxOutputTokens and tokenizer family explicitly`,
      { details: { model } },
    );
    this.name = 'UnknownModelError';
  }
}
