/** The README's server-side compaction example, compiled by the workspace typecheck and run by `test/readme-example.int.test.ts`. */
import type { Anthropic } from '@anthropic-ai/sdk';
import { withCompaction } from '@compactor/anthropic';
import { createEmbeddedStores } from '@compactor/embedded';
import { createCompactor } from '@compactor/engine';
import { createExtractiveSummarizer } from '@compactor/summarizer';

type History = Anthropic.Beta.Messages.BetaMessageParam[];

export async function continueAfterServerCompaction(anthropic: Anthropic, history: History, dataDir: string) {
  const stores = await createEmbeddedStores({ dataDir });
  const compactor = createCompactor({ stores, summarizer: createExtractiveSummarizer() });
  const client = withCompaction(anthropic, { compactor, threadId: 'migration-7', budget: 50_000 });
  // `history` holds the `compaction` block Anthropic returned: it is sent back verbatim, first.
  const response = await client.beta.messages.create({
    model: 'claude-sonnet-4-5',
    max_tokens: 1_024,
    messages: history,
  });
  await stores.close();
  return response.content;
}
