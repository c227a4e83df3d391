/** The README's Responses example, compiled by the workspace typecheck and run by `test/readme-example.unit.test.ts`. */
import { messagesToEvents } from '@compactor/core';
import { createCompactor } from '@compactor/engine';
import { createMemoryStores } from '@compactor/memory';
import { responsesItemsToMessages } from '@compactor/openai';
import { createExtractiveSummarizer } from '@compactor/summarizer';
import type { ResponseInputItem } from 'openai/resources/responses/responses';

export async function compactedResponsesParams(input: ResponseInputItem[]) {
  const compactor = createCompactor({
    stores: createMemoryStores(),
    summarizer: createExtractiveSummarizer(),
  });
  await compactor.append('agent-9', [
    { eventId: 'created', type: 'thread.created', model: 'gpt-4o', contextWindow: 128_000 },
  ]);
  // Encrypted reasoning and compaction items are kept as they came and sent back in place (ADR-0250).
  await compactor.append('agent-9', messagesToEvents(responsesItemsToMessages(input)));
  const { request } = await compactor.prepare('agent-9', { provider: 'openai-responses', budget: 8_000 });
  return { model: 'gpt-4o', store: false, ...request };
}
