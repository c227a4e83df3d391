/** The README's example, compiled by the workspace typecheck and run by `test/readme-example.int.test.ts`. */
import type { Anthropic } from '@anthropic-ai/sdk';
import { withCompaction } from '@compactor/anthropic';
import { createEmbeddedStores } from '@compactor/embedded';
import { createCompactor } from '@compactor/engine';
import { createExtractiveSummarizer } from '@compactor/summarizer';

export async function askWithCompaction(anthropic: Anthropic, question: string, dataDir: string) {
  const stores = await createEmbeddedStores({ dataDir });
  const compactor = createCompactor({ stores, summarizer: createExtractiveSummarizer() });
  const client = withCompaction(anthropic, { compactor, threadId: 'support-chat-42', budget: 50_000 });
  const messages: Anthropic.Messages.MessageParam[] = [{ role: 'user', content: question }];
  const response = await client.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 1_024, messages });
  await stores.close();
  return response.content;
}
