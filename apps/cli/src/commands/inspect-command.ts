import { availableForMessages, foldThread } from '@compactor/core';
import { createEmbeddedStores } from '@compactor/embedded';
import { highWaterFor, threadBudget } from '@compactor/engine';
import { tokenizerForThread } from '@compactor/tokenizer';
import type { Command } from 'commander';
import { providerForModel } from '../replay/replay-transcript.js';
import { unboundedRender } from '../replay/unbounded-tokens.js';
import { type InspectSource, remoteInspectSource } from './inspect-source.js';

interface InspectOptions {
  dataDir: string;
  tenant: string;
  json?: boolean;
  server?: string;
  apiKey?: string;
}

/**
 * Everything about one thread at a glance: log, plan, budget and what compaction did lately.
 *
 * @param threadId - The thread.
 * @param options - Data directory, tenant, and whether to print JSON.
 * @returns The thread's summary.
 * @throws Error naming the known threads when the thread does not exist.
 */
export async function inspectThread(threadId: string, options: InspectOptions) {
  const stores = await createEmbeddedStores({ dataDir: options.dataDir });
  try {
    return await inspectThreadIn(stores, threadId, { tenant: options.tenant, where: options.dataDir });
  } finally {
    await stores.close();
  }
}

/** The same view from any source of the thread: the embedded stores, or a running server's API. */
export async function inspectThreadIn(
  stores: InspectSource,
  threadId: string,
  options: { tenant: string; where: string },
) {
  const metadata = await stores.events.getThread(options.tenant, threadId);
  if (!metadata) {
    const { threads } = await stores.events.listThreads(options.tenant, { limit: 20 });
    const known = threads.map((thread) => thread.threadId).join(', ') || 'none';
    throw new Error(
      `no thread "${threadId}" for tenant "${options.tenant}" in ${options.where} (threads: ${known})`,
    );
  }
  const thread = foldThread(await stores.events.readAll(options.tenant, threadId));
  const current = await stores.plans.getCurrent(options.tenant, threadId);
  const versions = await stores.plans.listVersions(options.tenant, threadId);
  const lifecycle = await stores.lifecycle.list(options.tenant, threadId, { limit: 8 });
  const provider = providerForModel(thread.model);
  const tokenizer = tokenizerForThread(thread);
  const rendered = unboundedRender(thread, current.plan, provider, tokenizer);
  const roles = { system: 0, user: 0, assistant: 0, tool: 0 };
  for (const message of thread.messages) roles[message.role] += 1;
  return {
    threadId,
    tenantId: options.tenant,
    model: thread.model,
    contextWindow: thread.contextWindow,
    policy: {
      mode: thread.policy.mode.kind,
      autoCompact: thread.policy.autoCompact,
      trigger: thread.policy.trigger,
    },
    events: metadata.eventCount,
    version: metadata.version,
    messages: thread.messages.length,
    roles,
    userTurns: thread.messages.at(-1)?.turn ?? 0,
    storedMessageTokens: metadata.messageTokens,
    renderedMessageTokens: rendered.tokens.messages,
    targetMessageTokens: availableForMessages(threadBudget(thread)),
    // Where the trigger fires (ADR-0151): the prompt sits between the low-water mark and this.
    highWaterMessageTokens: highWaterFor(thread, {}, availableForMessages(threadBudget(thread))),
    compactionPending: metadata.compactionPending,
    plan: current.plan
      ? {
          version: current.version,
          basedOnSeq: current.plan.basedOnSeq,
          stale: rendered.report.stale,
          records: {
            externalize: current.plan.externalizations.length,
            summarize: current.plan.summarizations.length,
            clear: current.plan.clearings.length,
            drop: current.plan.drops.length,
          },
          summaryRounds: Math.max(0, ...current.plan.summarizations.map((record) => record.round)),
        }
      : null,
    planHistory: versions,
    recentLifecycle: lifecycle.map((event) => ({
      at: event.at,
      name: event.name,
      strategy: event.strategy,
      tokensBefore: event.tokensBefore,
      tokensAfter: event.tokensAfter,
    })),
  };
}

export function registerInspectCommand(program: Command): void {
  program
    .command('inspect')
    .description('a thread at a glance: events, plan and token budget')
    .argument('<thread>', 'thread id')
    .option('--data-dir <dir>', 'embedded data directory', './.compactor')
    .option('--tenant <tenant>', 'tenant the thread belongs to', 'local')
    .option('--json', 'print JSON')
    .option(
      '--server <url>',
      'inspect through a running ingest API (works while `serve` holds the data directory)',
    )
    .option('--api-key <key>', 'API key for --server (its tenant is the one inspected)')
    .action(async (threadId: string, options: InspectOptions) => {
      const view = options.server
        ? await inspectThreadIn(remoteInspectSource(options.server, options.apiKey), threadId, {
            tenant: 'the API key’s tenant',
            where: options.server,
          })
        : await inspectThread(threadId, options);
      if (options.json) {
        process.stdout.write(`${JSON.stringify(view, null, 2)}\n`);
        return;
      }
      const n = (value: number) => value.toLocaleString('en-US');
      const lines = [
        `thread    ${view.threadId} (tenant ${view.tenantId})`,
        `model     ${view.model}, ${n(view.contextWindow)}-token window; mode ${view.policy.mode}, auto-compaction ${view.policy.autoCompact ? 'on' : 'off'}`,
        `log       ${n(view.events)} events, version ${view.version}; ${n(view.messages)} messages (user ${view.roles.user}, assistant ${view.roles.assistant}, tool ${view.roles.tool}, system ${view.roles.system}), ${view.userTurns} user turns${view.compactionPending ? '; compaction check pending' : ''}`,
        `tokens    ${n(view.storedMessageTokens)} stored; ${n(view.renderedMessageTokens)} rendered under the current plan; target ${n(view.targetMessageTokens)}; high water ${n(view.highWaterMessageTokens)}`,
        view.plan
          ? `plan      version ${view.plan.version} (based on seq ${view.plan.basedOnSeq}${view.plan.stale ? ', newer events since' : ''}): externalize ${view.plan.records.externalize}, summarize ${view.plan.records.summarize} (${view.plan.summaryRounds} rounds), clear ${view.plan.records.clear}, drop ${view.plan.records.drop}; ${view.planHistory.length} versions kept`
          : 'plan      none committed',
        ...(view.recentLifecycle.length > 0
          ? [
              'recent    ',
              ...view.recentLifecycle.map(
                (event) =>
                  `  ${event.at} ${event.name}${event.strategy ? ` ${event.strategy}` : ''}${event.tokensAfter !== undefined ? ` ${event.tokensBefore} → ${event.tokensAfter}` : ''}`,
              ),
            ]
          : []),
      ];
      process.stdout.write(`${lines.join('\n')}\n`);
    });
}
