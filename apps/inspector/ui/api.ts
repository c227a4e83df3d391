import type { LifecycleEvent, StoredEvent } from './api-types.js';

/** An error from the API's envelope `{ error: { code, message } }`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** A client for the ingest API, authenticated by one key. */
export function createApi(apiKey: string) {
  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(path, {
      method,
      headers: {
        authorization: `Bearer ${apiKey}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    const json = text ? JSON.parse(text) : undefined;
    if (!response.ok) {
      const error = json?.error ?? {};
      throw new ApiError(response.status, error.code ?? 'unknown', error.message ?? response.statusText);
    }
    return json as T;
  }
  const thread = (id: string) => `/v1/threads/${encodeURIComponent(id)}`;
  return {
    apiKey,
    listThreads: (query: {
      prefix?: string;
      branchedFrom?: string;
      cursor?: string | null;
      limit?: number;
    }) => {
      const params = new URLSearchParams();
      if (query.prefix) params.set('prefix', query.prefix);
      if (query.branchedFrom) params.set('branchedFrom', query.branchedFrom);
      if (query.cursor) params.set('cursor', query.cursor);
      params.set('limit', String(query.limit ?? 50));
      return call<{ threads: ThreadRow[]; nextCursor: string | null }>('GET', `/v1/threads?${params}`);
    },
    getThread: (id: string) => call<ThreadDetail>('GET', thread(id)),
    readEvents: (id: string, fromSeq: number, limit = 1_000) =>
      call<{ events: StoredEvent[]; nextSeq: number | null }>(
        'GET',
        `${thread(id)}/events?fromSeq=${fromSeq}&limit=${limit}`,
      ),
    getPlan: (id: string) => call<PlanResponse>('GET', `${thread(id)}/plan`),
    planDiff: (id: string, version: number) => call<PlanDiff>('GET', `${thread(id)}/plans/${version}/diff`),
    lifecycle: (id: string, fromIndex = 1) =>
      call<{ events: IndexedLifecycleEvent[]; nextIndex: number | null; total: number }>(
        'GET',
        `${thread(id)}/lifecycle?fromIndex=${fromIndex}&limit=1000`,
      ),
    prompt: (id: string, options: { provider: string; budget?: number }) =>
      call<PromptResponse>('POST', `${thread(id)}/prompt`, {
        provider: options.provider,
        ...(options.budget ? { budget: options.budget } : {}),
      }),
    compact: (id: string, instructions: string) =>
      call<{ status: string; planVersion: number }>('POST', `${thread(id)}/compact`, {
        force: true,
        ...(instructions.trim() ? { instructions: instructions.trim() } : {}),
      }),
    branch: (id: string, fromMessageId: string) =>
      call<{ threadId: string }>('POST', `${thread(id)}/branch`, { fromMessageId }),
    setPolicy: (id: string, patch: Record<string, unknown>) =>
      call<{ policy: Record<string, unknown> }>('PATCH', `${thread(id)}/policy`, patch),
    artifact: (artifactId: string) =>
      call<{ content: string; metadata: ArtifactMetadata }>('GET', `/v1/artifacts/${artifactId}`),
  };
}

export type Api = ReturnType<typeof createApi>;

export interface ThreadRow {
  threadId: string;
  model: string;
  contextWindow: number;
  messageCount: number;
  tokens: { messages: number; now: number; ceiling: number };
  planVersion: number;
  lastCompaction: { planVersion: number; at: string } | null;
  autoCompact: boolean;
  status: 'ok' | 'pending' | 'failed';
  branchedFrom: { sourceThreadId: string; fromMessageId: string } | null;
  updatedAt: string;
}

export interface ThreadDetail {
  threadId: string;
  model: string;
  contextWindow: number;
  policy: { autoCompact: boolean; [field: string]: unknown };
  messageCount: number;
  planVersion: number;
  branchedFrom: { sourceThreadId: string; fromMessageId: string } | null;
}

export interface PlanVersionSummary {
  version: number;
  basedOnSeq: number;
  createdAt: string;
  revertedFrom?: number;
}

export interface PlanResponse {
  current: { version: number; plan: Plan | null };
  history: PlanVersionSummary[];
}

export interface SpanRecord {
  kind: 'summarize' | 'externalize' | 'abridge' | 'clear' | 'drop';
  span: { messageIds: string[] };
}

export interface Fact {
  text: string;
  pinned: boolean;
}

export interface StructuredSummary {
  facts: Fact[];
  decisions: Array<{ decision: string; rationale?: string }>;
  openItems: Array<{ description: string; priority: string }>;
  currentTask: string | null;
}

export interface Plan {
  version: number;
  createdAt: string;
  summarizations: Array<
    SpanRecord & { summary: StructuredSummary; summaryTokenCount: number; round: number }
  >;
  externalizations: Array<SpanRecord & { artifactId: string; sensitivity: string; rehydrateHint: string }>;
  clearings: SpanRecord[];
  drops: Array<SpanRecord & { reason: string }>;
  /** Messages kept in place with media or pastes replaced by stand-ins (ADR-0265); absent in older plans. */
  abridgements?: SpanRecord[];
}

export interface ChangedSpan {
  fromMessageId: string;
  toMessageId: string;
  messageCount: number;
  before: string;
  after: string;
}

export interface PlanDiff {
  version: number;
  previousVersion: number;
  plan: { tokensBefore: number; tokensAfter: number; createdAt: string };
  compaction: (LifecycleEvent & { details?: Record<string, unknown> }) | null;
  changes: ChangedSpan[];
  changedMessages: number;
}

export interface IndexedLifecycleEvent extends LifecycleEvent {
  index: number;
}

export interface PromptResponse {
  request: unknown;
  tokens: {
    system: number;
    tools: number;
    formatting: number;
    messages: number;
    rehydration: number;
    total: number;
  };
  report: {
    ceiling: number;
    provider: string;
    planVersion: number | null;
    rehydration: { tokens: number; performed: RehydrationEvent[]; blocked: RehydrationEvent[] };
    counts: Record<string, number>;
  };
}

export interface ArtifactMetadata {
  sensitivity: string;
  expiresAt?: string;
  createdAt?: string;
  sizeBytes?: number;
}

/** A rehydration the render performed or refused (the render report's, not the lifecycle log's). */
export interface RehydrationEvent {
  name: string;
  artifactId: string;
  trigger: string;
  reason?: string;
  detail?: string;
  sensitivity?: string;
  tokens?: number;
}
