import { randomUUID } from 'node:crypto';
import type { ProviderName } from '@compactor/core';
import type {
  AppendableEvent,
  AppendEventsResult,
  ArtifactView,
  BranchOptions,
  BranchResult,
  CompactionSummary,
  CompactOptions,
  CreateThreadInput,
  CreateThreadResult,
  EventsPage,
  PlanView,
  PromptOptions,
  ReadinessView,
  RenderedPrompt,
  RenderSnapshot,
  SearchHistoryAnswer,
  ThreadView,
} from './api-types.js';
import { createTransport, type RetryEvent } from './http-transport.js';
import type {
  LifecyclePage,
  ListThreadsOptions,
  PlanDiffView,
  PolicyPatch,
  PolicyUpdateResult,
  ThreadsPage,
} from './inspector-types.js';
import { defaultRetryPolicy, type RetryPolicy } from './retry-policy.js';

/** Where the ingest is, the API key, and how calls retry and time out. */
export interface CompactorClientOptions {
  /** Where the ingest listens, e.g. `http://127.0.0.1:8080`. */
  baseUrl: string;
  /** Sent as a bearer token. */
  apiKey: string;
  /** @defaultValue the global `fetch` (Node 20+) */
  fetch?: typeof fetch;
  /** Retries after the first attempt for calls that are safe to repeat. @defaultValue 3 */
  retries?: number;
  /** First backoff, doubled per retry (with jitter). @defaultValue 100 */
  retryDelayMs?: number;
  /** Longest wait between attempts, `Retry-After` included. @defaultValue 5,000 */
  maxRetryDelayMs?: number;
  /** Timeout of each attempt. @defaultValue 30,000 */
  timeoutMs?: number;
  /** Called before each retry (for logs and metrics). */
  onRetry?: (event: RetryEvent) => void;
}

/** Per-call options. */
export interface CallOptions {
  /** Aborts the call, its retries and their waits. */
  signal?: AbortSignal;
}

const segment = encodeURIComponent;

/**
 * A typed client for the ingest API. Calls that are safe to repeat are retried on network errors,
 * 429 and 5xx (never on another 4xx): reads; appends, because the server stores each event id once
 * and answers a repeated batch with the seqs it first gave; thread creation and branching, because
 * the client fixes their ids before the first attempt. Manual compaction is not retried.
 *
 * @param options - Base URL, API key, fetch, retries and timeout.
 * @returns The client; each call rejects with `CompactorApiError` (an error status) or
 *   `CompactorNetworkError` (no answer) once its retries are spent.
 */
export function createCompactorClient(options: CompactorClientOptions) {
  const retry: RetryPolicy = {
    retries: options.retries ?? defaultRetryPolicy.retries,
    baseDelayMs: options.retryDelayMs ?? defaultRetryPolicy.baseDelayMs,
    maxDelayMs: options.maxRetryDelayMs ?? defaultRetryPolicy.maxDelayMs,
  };
  const send = createTransport({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    fetch: options.fetch ?? globalThis.fetch,
    retry,
    timeoutMs: options.timeoutMs ?? 30_000,
    onRetry: options.onRetry,
  });
  const read = async <T>(
    path: string,
    query?: Record<string, string | number | undefined>,
    call?: CallOptions,
  ) => (await send<T>('GET', path, { retry: true, ...(query ? { query } : {}), signal: call?.signal })).body;

  return {
    /**
     * Create a thread; retried safely (the client fixes threadId and eventId first).
     *
     * @param input - Model, window, policy and optional ids.
     * @param call - Abort signal of this call.
     * @returns The thread, `created: false` when it already existed.
     * @throws CompactorApiError on an error status; CompactorNetworkError when no answer came.
     */
    async createThread(input: CreateThreadInput, call?: CallOptions): Promise<CreateThreadResult> {
      const body = {
        ...input,
        threadId: input.threadId ?? randomUUID(),
        eventId: input.eventId ?? randomUUID(),
      };
      return (
        await send<CreateThreadResult>('POST', '/v1/threads', { body, retry: true, signal: call?.signal })
      ).body;
    },

    /**
     * Append a batch. Each event carries the caller's own `eventId`: a retried batch stores
     * nothing twice and returns the same seqs, so network errors, 429 and 5xx are retried.
     * `expectedVersion` is sent as `If-Match` (409 when the thread moved on).
     *
     * @param threadId - The thread.
     * @param events - The batch.
     * @param appendOptions - Expected version and abort signal.
     * @returns The new version and each event's seq.
     * @throws CompactorApiError on an error status; CompactorNetworkError when no answer came.
     */
    async appendEvents(
      threadId: string,
      events: AppendableEvent[],
      appendOptions: { expectedVersion?: number; signal?: AbortSignal } = {},
    ): Promise<AppendEventsResult> {
      const headers: Record<string, string> =
        appendOptions.expectedVersion === undefined
          ? {}
          : { 'if-match': `"${appendOptions.expectedVersion}"` };
      return (
        await send<AppendEventsResult>('POST', `/v1/threads/${segment(threadId)}/events`, {
          body: { events },
          headers,
          retry: true,
          signal: appendOptions.signal,
        })
      ).body;
    },

    /**
     * A thread's settings, size and compaction state.
     *
     * @param threadId - The thread.
     * @param call - Abort signal of this call.
     * @returns The thread.
     * @throws CompactorApiError (`not_found` for an unknown thread); CompactorNetworkError.
     */
    getThread: (threadId: string, call?: CallOptions) =>
      read<ThreadView>(`/v1/threads/${segment(threadId)}`, undefined, call),

    /**
     * One page of a thread's events.
     *
     * @param threadId - The thread.
     * @param page - First seq and page size.
     * @param call - Abort signal of this call.
     * @returns The page and where the next starts.
     * @throws CompactorApiError on an error status; CompactorNetworkError when no answer came.
     */
    listEvents: (threadId: string, page: { fromSeq?: number; limit?: number } = {}, call?: CallOptions) =>
      read<EventsPage>(`/v1/threads/${segment(threadId)}/events`, { ...page }, call),

    /**
     * Every event of a thread, following `nextSeq` page by page.
     *
     * @param threadId - The thread.
     * @param call - Abort signal of this call.
     * @returns The events in seq order.
     * @throws CompactorApiError on an error status; CompactorNetworkError when no answer came.
     */
    async readAllEvents(threadId: string, call?: CallOptions): Promise<EventsPage['events']> {
      const events: EventsPage['events'] = [];
      let fromSeq: number | null = 1;
      while (fromSeq !== null) {
        const page: EventsPage = await read<EventsPage>(
          `/v1/threads/${segment(threadId)}/events`,
          { fromSeq, limit: 1000 },
          call,
        );
        events.push(...page.events);
        fromSeq = page.nextSeq;
      }
      return events;
    },

    /**
     * A thread's current plan and its version history.
     *
     * @param threadId - The thread.
     * @param call - Abort signal of this call.
     * @returns The plan view.
     * @throws CompactorApiError on an error status; CompactorNetworkError when no answer came.
     */
    getPlan: (threadId: string, call?: CallOptions) =>
      read<PlanView>(`/v1/threads/${segment(threadId)}/plan`, undefined, call),

    /**
     * The next prompt, compacted and within budget (`POST .../prompt`: system and tools travel in
     * the body, so neither is limited by a URL). Rendering writes nothing, so it is retried.
     *
     * @param threadId - The thread.
     * @param prompt - Provider, budget, system prompt and tools.
     * @param call - Abort signal of this call.
     * @returns The provider request, its token counts and the render report.
     * @throws CompactorApiError on an error status; CompactorNetworkError when no answer came.
     */
    async renderPrompt<P extends ProviderName = 'anthropic'>(
      threadId: string,
      prompt: PromptOptions<P> = {},
      call?: CallOptions,
    ): Promise<RenderedPrompt<P>> {
      const body = Object.fromEntries(Object.entries(prompt).filter(([, value]) => value !== undefined));
      return (
        await send<RenderedPrompt<P>>('POST', `/v1/threads/${segment(threadId)}/prompt`, {
          body,
          retry: true,
          signal: call?.signal,
        })
      ).body;
    },

    /**
     * Answer a model's `search_history` call (`POST .../search-history`, ADR-0163) from what the
     * thread's current plan compacted. Writes nothing, so it is retried.
     *
     * @param threadId - The thread.
     * @param searchCall - The call's id and input (`{ query, top_k? }`, as the model wrote it).
     * @param call - Abort signal of this call.
     * @returns The tool result to append, and the messages found.
     * @throws CompactorApiError on an error status; CompactorNetworkError when no answer came.
     */
    async searchHistory(
      threadId: string,
      searchCall: { toolCallId: string; input: unknown },
      call?: CallOptions,
    ): Promise<SearchHistoryAnswer> {
      return (
        await send<SearchHistoryAnswer>('POST', `/v1/threads/${segment(threadId)}/search-history`, {
          body: searchCall,
          retry: true,
          signal: call?.signal,
        })
      ).body;
    },

    /**
     * Pin the thread's current version and plan version for delegated agents (ADR-0180); each passes
     * the id as `snapshot` to {@link renderPrompt} and gets the same bytes. Retried: taking one writes nothing.
     *
     * @param threadId - The thread.
     * @param call - Abort signal of this call.
     * @returns The snapshot id and the versions it pins.
     * @throws CompactorApiError on an error status; CompactorNetworkError when no answer came.
     */
    async createSnapshot(threadId: string, call?: CallOptions): Promise<RenderSnapshot> {
      return (
        await send<RenderSnapshot>('POST', `/v1/threads/${segment(threadId)}/snapshots`, {
          body: {},
          retry: true,
          signal: call?.signal,
        })
      ).body;
    },

    /**
     * Manual compaction, synchronous on the server; not retried (it may have run).
     *
     * @param threadId - The thread.
     * @param compact - Instructions and `force`.
     * @param call - Abort signal of this call.
     * @returns What the compaction did.
     * @throws CompactorApiError on an error status; CompactorNetworkError when no answer came.
     */
    async compact(
      threadId: string,
      compact: CompactOptions = {},
      call?: CallOptions,
    ): Promise<CompactionSummary> {
      return (
        await send<CompactionSummary>('POST', `/v1/threads/${segment(threadId)}/compact`, {
          body: compact,
          retry: false,
          signal: call?.signal,
        })
      ).body;
    },

    /**
     * Branch a thread at a message; retried safely (the client fixes newThreadId first).
     *
     * @param threadId - The source thread.
     * @param branch - The message to branch at and the new thread's id.
     * @param call - Abort signal of this call.
     * @returns The branch.
     * @throws CompactorApiError on an error status; CompactorNetworkError when no answer came.
     */
    async branch(threadId: string, branch: BranchOptions, call?: CallOptions): Promise<BranchResult> {
      const body = { ...branch, newThreadId: branch.newThreadId ?? randomUUID() };
      return (
        await send<BranchResult>('POST', `/v1/threads/${segment(threadId)}/branch`, {
          body,
          retry: true,
          signal: call?.signal,
        })
      ).body;
    },

    /** The tenant's threads by id, a page at a time; filter by id prefix or source thread. */
    listThreads: (list: ListThreadsOptions = {}, call?: CallOptions) =>
      read<ThreadsPage>('/v1/threads', { ...list }, call),

    /** A page of the thread's lifecycle events (1-based `index`), oldest first. */
    listLifecycle: (
      threadId: string,
      page: { fromIndex?: number; limit?: number } = {},
      call?: CallOptions,
    ) => read<LifecyclePage>(`/v1/threads/${segment(threadId)}/lifecycle`, { ...page }, call),

    /** Which spans a plan version treats differently from the one before it. */
    getPlanDiff: (threadId: string, version: number, call?: CallOptions) =>
      read<PlanDiffView>(`/v1/threads/${segment(threadId)}/plans/${version}/diff`, undefined, call),

    /** Patch the thread's mutable policy; retried safely (setting the same fields twice changes nothing more). */
    async updatePolicy(
      threadId: string,
      patch: PolicyPatch,
      update: { expectedVersion?: number; signal?: AbortSignal } = {},
    ): Promise<PolicyUpdateResult> {
      const headers: Record<string, string> =
        update.expectedVersion === undefined ? {} : { 'if-match': `"${update.expectedVersion}"` };
      return (
        await send<PolicyUpdateResult>('PATCH', `/v1/threads/${segment(threadId)}/policy`, {
          body: patch,
          headers,
          retry: update.expectedVersion === undefined,
          signal: update.signal,
        })
      ).body;
    },

    /**
     * An externalized artifact (the `read_artifact` tool's call).
     *
     * @param artifactId - The artifact id.
     * @param call - Abort signal of this call.
     * @returns Its content and metadata.
     * @throws CompactorApiError (`not_found`, `access_denied`, ...); CompactorNetworkError.
     */
    readArtifact: (artifactId: string, call?: CallOptions) =>
      read<ArtifactView>(`/v1/artifacts/${segment(artifactId)}`, undefined, call),

    /**
     * `GET /healthz`: the process answers.
     *
     * @param call - Abort signal of this call.
     * @returns `{ status: 'ok' }`.
     * @throws CompactorApiError on an error status; CompactorNetworkError when no answer came.
     */
    health: (call?: CallOptions) => read<{ status: 'ok' }>('/healthz', undefined, call),

    /**
     * `GET /readyz`: every dependency answers.
     *
     * @param call - Abort signal of this call.
     * @returns The checks.
     * @throws CompactorApiError (503 when a dependency does not answer); CompactorNetworkError.
     */
    ready: (call?: CallOptions) => read<ReadinessView>('/readyz', undefined, call),

    /**
     * `GET /metrics` in Prometheus text format.
     *
     * @param call - Abort signal of this call.
     * @returns The exposition text.
     * @throws CompactorApiError on an error status; CompactorNetworkError when no answer came.
     */
    async metrics(call?: CallOptions): Promise<string> {
      return (
        await send<string>('GET', '/metrics', { retry: true, responseType: 'text', signal: call?.signal })
      ).body;
    },

    /**
     * The server's OpenAPI document.
     *
     * @param call - Abort signal of this call.
     * @returns The document.
     * @throws CompactorApiError on an error status; CompactorNetworkError when no answer came.
     */
    openApi: (call?: CallOptions) => read<Record<string, unknown>>('/openapi.json', undefined, call),
  };
}

/** The client {@link createCompactorClient} returns. */
export type CompactorClient = ReturnType<typeof createCompactorClient>;
