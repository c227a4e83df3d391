/** The README's streaming example, compiled by the workspace typecheck and run by `test/readme-example.int.test.ts`. */
import type { Anthropic } from '@anthropic-ai/sdk';
import { withCompaction } from '@compactor/anthropic';
import { createEmbeddedStores } from '@compactor/embedded';
import { createCompactor } from '@compactor/engine';
import { createExtractiveSummarizer } from '@compactor/summarizer';

export async function streamWithCompaction(anthropic: Anthropic, question: string, dataDir: string) {
  const stores = await createEmbeddedStores({ dataDir });
  const compactor = createCompactor({ stores, summarizer: createExtractiveSummarizer() });
  const client = withCompaction(anthropic, { compactor, threadId: 'support-chat-42', budget: 50_000 });
  const messages: Anthropic.Messages.MessageParam[] = [{ role: 'user', content: question }];
  const stream = client.messages.stream({ model: 'claude-sonnet-4-5', max_tokens: 1_024, messages });
  stream.on('text', (delta) => process.stdout.write(delta));
  const answer = await stream.finalMessage(); // already appended to the thread, once and complete
  const logged = await stores.events.readAll('local', 'support-chat-42');
  await stores.close();
  return { answer, logged };
}
