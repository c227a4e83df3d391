import { performance } from 'node:perf_hooks';
import { createCompactorClient } from '@compactor/client';
import { type EventInput, foldThread, type ProviderName, type StoredEvent } from '@compactor/core';
import { importTranscriptFile } from '@compactor/importers';
import { tokenizerForThread } from '@compactor/tokenizer';
import { readPolicyOption } from '../commands/policy-option.js';
import { type ReplayCommandOptions, windowOf } from '../commands/replay-command.js';
import { providerForModel, type ReplayResult, type StrategyCounts } from './replay-transcript.js';
import { unboundedRender } from './unbounded-tokens.js';

/**
 * `replay --server`: the same transcript through a running ingest API, one event per request, so
 * the server's own workers compact as the conversation grows. After the last event one manual
 * (unforced) check settles whatever the debounce still holds; then the prompt is rendered there.
 *
 * @param file - The transcript file.
 * @param options - The replay command's options (server, API key, format, model, window, ...).
 * @returns The report, the final request and the imported transcript.
 * @throws Error without `--api-key`; the client's `CompactorApiError`/`CompactorNetworkError` when the server fails.
 */
export async function replayThroughServer(
  file: string,
  options: ReplayCommandOptions,
): Promise<ReplayResult> {
  if (!options.apiKey) throw new Error('--server needs --api-key');
  const started = performance.now();
  const imported = await importTranscriptFile(file, {
    ...(options.format !== 'auto' ? { format: options.format as never } : {}),
    ...(options.conversation !== undefined ? { conversation: options.conversation - 1 } : {}),
    ...(options.model ? { model: options.model } : {}),
  });
  const model = options.model ?? imported.model;
  const provider = (options.provider as ProviderName | undefined) ?? providerForModel(model);
  const client = createCompactorClient({ baseUrl: options.server!, apiKey: options.apiKey });
  const created = imported.events.find((event) => event.type === 'thread.created');
  const imposed = options.policy ? await readPolicyOption(options.policy) : undefined;
  const importedPolicy = created?.type === 'thread.created' ? created.policy : undefined;
  const policy = imposed ? { ...importedPolicy, ...imposed } : importedPolicy;
  const { threadId } = await client.createThread({
    threadId: `${imported.threadId}-${Date.now().toString(36)}`,
    model,
    ...(windowOf(options) ? { contextWindow: windowOf(options) } : {}),
    ...(policy ? { policy } : {}),
  });
  const messages = imported.events.filter(
    (event): event is Extract<EventInput, { type: 'message.appended' }> => event.type === 'message.appended',
  );
  for (const event of messages) await client.appendEvents(threadId, [event]);
  const settle = await client.compact(threadId, {});
  const view = await client.getThread(threadId);
  const planView = await client.getPlan(threadId);
  const prompt = await client.renderPrompt(threadId, { provider });

  const records: StrategyCounts = { abridge: 0, externalize: 0, summarize: 0, clear: 0, drop: 0 };
  const plan = planView.current.plan;
  for (const record of [
    ...(plan?.externalizations ?? []),
    ...(plan?.summarizations ?? []),
    ...(plan?.clearings ?? []),
    ...(plan?.drops ?? []),
    ...(plan?.abridgements ?? []),
  ]) {
    records[record.kind] += 1;
  }
  // The whole transcript as one prompt, counted here with the same tokenizer the server uses.
  const stored = (await client.readAllEvents(threadId)) as StoredEvent[];
  const thread = foldThread(stored);
  const tokensBefore = unboundedRender(thread, null, provider, tokenizerForThread(thread)).tokens.total;
  return {
    imported,
    request: prompt.request,
    report: {
      file,
      format: imported.format,
      conversation: imported.conversationIndex + 1,
      conversationCount: imported.conversationCount,
      threadId,
      summarizer: 'server',
      model,
      provider,
      contextWindow: view.contextWindow,
      events: messages.length + 1,
      messages: messages.length,
      userTurns: foldThread(stored).messages.at(-1)?.turn ?? 0,
      tokensBefore,
      tokensAfter: prompt.tokens.total,
      ceiling: prompt.report.ceiling,
      checks: planView.history.length + 1,
      compactions: planView.history.length,
      lostRaces: 0,
      unreachable: settle.plannerStatus === 'target_unreachable' ? 1 : 0,
      planVersion: planView.current.version,
      recordsByStrategy: records,
      recordsAddedByStrategy: records,
      summarizerCalls: settle.summarizerCalls,
      summarizerCostUsd: (plan?.summarizations ?? []).reduce(
        (total, record) => total + (record.summarizer?.costUsd ?? 0),
        0,
      ),
      emergencyFit: false,
      elapsedMs: Math.round(performance.now() - started),
      importWarnings: imported.warnings,
    },
  };
}
