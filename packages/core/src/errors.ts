/**
 * Errors are recognised by a marker symbol rather than `instanceof`, so they survive duplicated
 * module copies. Structured cloning keeps only name, message, cause and stack: send `code` and
 * `details` explicitly across a process or worker boundary.
 */
const compactorErrorMarker = Symbol.for('compactor.error');

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

export interface CompactorErrorOptions {
  cause?: unknown;
  isRetryable?: boolean;
  details?: Record<string, unknown>;
}

export class CompactorError extends Error {
  readonly [compactorErrorMarker] = true;
  readonly code: CompactorErrorCode;
  readonly isRetryable: boolean;
  readonly details: Record<string, unknown>;

  constructor(code: CompactorErrorCode, message: string, options: CompactorErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'CompactorError';
    this.code = code;
    this.isRetryable = options.isRetryable ?? false;
    this.details = options.details ?? {};
  }

  static isInstance(error: unknown): error is CompactorError {
    return typeof error === 'object' && error !== null && compactorErrorMarker in error;
  }

  static hasCode(error: unknown, code: CompactorErrorCode): error is CompactorError {
    return CompactorError.isInstance(error) && error.code === code;
  }
}

export interface FieldIssue {
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

export class ValidationError extends CompactorError {
  readonly issues: FieldIssue[];
  constructor(message: string, issues: FieldIssue[] = [], options: CompactorErrorOptions = {}) {
    super('validation', message, { ...options, details: { ...options.details, issues } });
    this.name = 'ValidationError';
    this.issues = issues;
  }
}

export class NotFoundError extends CompactorError {
  constructor(what: string, id: string) {
    super('not_found', `${what} ${id} was not found`, { details: { what, id } });
    this.name = 'NotFoundError';
  }
}

/** Optimistic concurrency: the caller's expected version is not the current one. Nothing was written. */
export class ConcurrencyError extends CompactorError {
  readonly expectedVersion: number;
  readonly actualVersion: number;
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
  constructor(eventId: string) {
    super('idempotency_conflict', `event ${eventId} was already appended with different content`, {
      details: { eventId },
    });
    this.name = 'IdempotencyConflictError';
  }
}

export class IntegrityError extends CompactorError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super('integrity', message, { details });
    this.name = 'IntegrityError';
  }
}

export class UnknownModelError extends CompactorError {
  constructor(model: string) {
    super(
      'unknown_model',
      `unknown model "${model}": supply contextWindow, maxOutputTokens and tokenizer family explicitly`,
      { details: { model } },
    );
    this.name = 'UnknownModelError';
  }
}
