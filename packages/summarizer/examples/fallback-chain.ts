/**
 * The README's example, compiled by the workspace typecheck and run by
 * `test/readme-example.unit.test.ts`: the production chain (LLM → extractive → head+tail) behind
 * the summary cache, with an LLM that is down.
 */
import {
  type CachedSummary,
  CompactorError,
  foldThread,
  type StoredEvent,
  type Summarizer,
  type SummaryCache,
  type SummaryCacheKey,
  spanOf,
  summaryCacheKeyToString,
} from '@compactor/core';
import { createCachedSummarizer, createResilientSummarizer } from '@compactor/summarizer';

/** The smallest SummaryCache: a Map per process (production uses the embedded or MongoDB adapter). */
function inMemorySummaryCache(): SummaryCache {
  const entries = new Map<string, CachedSummary>();
  return {
    async get(tenantId: string, key: SummaryCacheKey) {
      return entries.get(`${tenantId}|${summaryCacheKeyToString(key)}`) ?? null;
    },
    async set(tenantId: string, key: SummaryCacheKey, value: CachedSummary) {
      entries.set(`${tenantId}|${summaryCacheKeyToString(key)}`, value);
    },
  };
}

/** Stands in for the Anthropic summarizer during an outage. */
const unavailableLlm: Summarizer = {
  id: 'llm',
  modelId: 'claude-haiku-4-5',
  promptVersion: 'p1',
  async summarize() {
    throw new CompactorError('unavailable', 'the Messages API answered 529', { isRetryable: true });
  },
};

export async function summarizeDuringAnOutage() {
  const base = { tenantId: 'acme', threadId: 'demo', timestamp: '2025-01-01T00:00:00.000Z' };
  const events: StoredEvent[] = [
    {
      ...base,
      eventId: 'e1',
      seq: 1,
      type: 'thread.created',
      model: 'claude-sonnet-4-5',
      contextWindow: 200_000,
    },
    {
      ...base,
      eventId: 'e2',
      seq: 2,
      type: 'message.appended',
      message: {
        id: 'm1',
        role: 'user',
        content: [{ type: 'text', text: 'Migrate the importer to zod 4. Never change the public API.' }],
      },
    },
    {
      ...base,
      eventId: 'e3',
      seq: 3,
      type: 'message.appended',
      message: {
        id: 'm2',
        role: 'assistant',
        content: [{ type: 'text', text: 'I will start with the schemas.' }],
      },
    },
  ];
  const thread = foldThread(events);

  const summarizer = createCachedSummarizer(createResilientSummarizer({ primary: unavailableLlm }), {
    cache: inMemorySummaryCache(),
    policyVersion: thread.policy.version,
  });
  const request = {
    tenantId: thread.tenantId,
    threadId: thread.id,
    span: spanOf(thread.messages),
    messages: thread.messages,
  };
  const first = await summarizer.summarize(request);
  const second = await summarizer.summarize(request);
  return { first, second };
}
