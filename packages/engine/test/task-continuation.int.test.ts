/**
 * The default policy's task-continuation test and quality metrics (ADR-0195): an agent runs a multi-step task
 * until context pressure compacts its thread (inline, through `createCompactor().prepare`, on the
 * embedded stores, with the extractive summarizer behind the fallback chain), and must still finish
 * it correctly. The agent is scripted and deterministic: it acts only on the request it is given, so
 * what compaction kept or lost decides what it can do. A policy that forgets (a two-turn window) runs
 * the same task as the control, so the metrics are seen to show a loss.
 *
 * What needs a real model is not here: whether a model (rather than this script) notices a pointer
 * and reads the artifact back, and asks less or more after an LLM summary.
 */
import {
  compactionQualityMetrics,
  type EventInput,
  foldThread,
  type Message,
  plansFromLog,
  type ToolResultPart,
} from '@compactor/core';
import { handleReadArtifact } from '@compactor/render';
import { createResilientSummarizer } from '@compactor/summarizer';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createCompactor } from '../src/index.js';
import { withEmbeddedStores } from './support.js';

// Real stores and the real tokenizer on two shared cores: allow for load, never assert on time.
vi.setConfig({ testTimeout: 120_000 });

let cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups) await cleanup();
  cleanups = [];
});

const SYSTEM = 'You are a platform engineer. Use the tools; follow the user constraints exactly.';
const TOOLS = [
  { name: 'create_ticket', description: 'Open a change ticket', inputSchema: { type: 'object' } },
  { name: 'read_config', description: "Read a service's deployment config", inputSchema: { type: 'object' } },
  { name: 'migrate', description: 'Move a service to the new cluster', inputSchema: { type: 'object' } },
];
const SERVICES = ['auth', 'billing', 'search', 'inventory', 'shipping', 'email', 'payments', 'reports'];
const REPLICAS: Record<string, number> = {
  auth: 3,
  billing: 5,
  search: 7,
  inventory: 2,
  shipping: 4,
  email: 6,
  payments: 9,
  reports: 8,
};
const TICKET = 'CHG-4821';
const CONSTRAINT = 'Never restart the payments service';

function configOf(service: string): string {
  const filler = Array.from(
    { length: 70 },
    (_, line) => `  env_${line}: value-${service}-${line} # inherited from the base chart, unchanged`,
  ).join('\n');
  return `service: ${service}\nreplicas: ${REPLICAS[service]}\nimage: registry/${service}:2.4.1\nenv:\n${filler}`;
}

interface RunOutcome {
  migrations: Array<{ service: string; replicas: number; restart: boolean }>;
  finalAnswer: string;
  threadId: string;
  stores: Awaited<ReturnType<typeof withEmbeddedStores>>['stores'];
  compactions: number;
}

/** Run the task under `policy`; the scripted agent sees only each rendered request. */
async function runTask(threadId: string, policy: Record<string, unknown>): Promise<RunOutcome> {
  const { stores, cleanup } = await withEmbeddedStores();
  cleanups.push(cleanup);
  const compactor = createCompactor({
    stores: {
      events: stores.events,
      plans: stores.plans,
      artifacts: stores.artifacts,
      lifecycle: stores.lifecycle,
    },
    summarizer: createResilientSummarizer(),
    tenantId: 'tenant-1',
  });
  let counter = 0;
  const next = () => {
    counter += 1;
    return counter;
  };
  const append = (message: Message) =>
    compactor.append(threadId, [{ eventId: `e${next()}`, type: 'message.appended', message }]);
  const created: EventInput = {
    eventId: 'created',
    type: 'thread.created',
    model: 'claude-sonnet-4-5',
    contextWindow: 16_000,
    policy: {
      outputReserveTokens: 2000,
      keepRecentTurns: 2,
      keepRecentTokens: 1500,
      clearAtLeastTokens: 500,
      ...policy,
    },
  };
  await compactor.append(threadId, [created]);
  let compactions = 0;
  const render = async () => {
    const prepared = await compactor.prepare(threadId, {
      provider: 'anthropic',
      system: SYSTEM,
      tools: TOOLS,
    });
    if (prepared.compaction?.commit.status === 'committed') compactions += 1;
    return JSON.stringify(prepared.request);
  };
  const call = async (name: string, input: Record<string, unknown>, text: string) => {
    const id = `call_${next()}`;
    await append({
      id: `m${next()}`,
      role: 'assistant',
      content: [
        { type: 'text', text },
        { type: 'tool_call', id, name, input },
      ],
    });
    return id;
  };
  const result = (
    part: Omit<ToolResultPart, 'type' | 'keyFields'> & { keyFields?: Record<string, unknown> },
  ) => append({ id: `m${next()}`, role: 'tool', content: [{ type: 'tool_result', keyFields: {}, ...part }] });
  const say = (role: 'user' | 'assistant', text: string) =>
    append({ id: `m${next()}`, role, content: [{ type: 'text', text }] });

  const migrations: RunOutcome['migrations'] = [];
  await say(
    'user',
    `Migrate these services to the new cluster, one per turn: ${SERVICES.join(', ')}. ${CONSTRAINT}: migrate it without a restart. Open a change ticket first and give me its number at the end.`,
  );
  await render();
  const ticketCall = await call(
    'create_ticket',
    { title: 'Cluster migration' },
    'Opening the change ticket.',
  );
  await result({
    toolName: 'create_ticket',
    toolCallId: ticketCall,
    outcome: 'success',
    content: { ticket: TICKET, status: 'open', queue: 'platform' },
    keyFields: { ticket: TICKET },
  });
  await say('assistant', 'Ticket opened.');

  for (const service of SERVICES) {
    await say('user', `Continue with ${service}.`);
    await render();
    const readId = await call('read_config', { service }, `Reading the ${service} config.`);
    await result({
      toolName: 'read_config',
      toolCallId: readId,
      outcome: 'success',
      content: configOf(service),
    });
    const seen = await render();
    // The agent takes the replica count from the config it just read, and restarts unless it can
    // still see the user's constraint for this service.
    const replicas = Number(new RegExp(`service: ${service}\\\\nreplicas: (\\d+)`).exec(seen)?.[1] ?? -1);
    const restart = !(service === 'payments' && seen.includes(CONSTRAINT));
    migrations.push({ service, replicas, restart });
    const migrateId = await call('migrate', { service, replicas, restart }, `Migrating ${service}.`);
    await result({
      toolName: 'migrate',
      toolCallId: migrateId,
      outcome: 'success',
      content: `migrated ${service}`,
      keyFields: { service },
      durability: 'ephemeral',
    });
    await say('assistant', `${service} migrated.`);
  }

  await say('user', 'Are we done? Give me the change ticket number.');
  let seen = await render();
  let ticket = /CHG-\d+/.exec(seen)?.[0];
  // Not in view: read back what the pointers offer (explicit rehydration), then look again.
  if (!ticket) {
    const pointers = [
      ...new Set([...seen.matchAll(/read_artifact\(\\"([^"\\]+)\\"\)/g)].map((match) => match[1]!)),
    ];
    for (const artifactId of pointers) {
      const id = await call('read_artifact', { artifact_id: artifactId }, 'Reading an artifact back.');
      const { plan } = await stores.plans.getCurrent('tenant-1', threadId);
      const outcome = await handleReadArtifact(
        { artifact_id: artifactId },
        {
          toolCallId: id,
          artifactStore: stores.artifacts,
          securityContext: { requesterId: 'agent', tenantId: 'tenant-1', permissions: [] },
          plan,
        },
      );
      await append({ id: `m${next()}`, role: 'tool', content: [outcome.result] });
    }
    if (pointers.length > 0) {
      seen = await render();
      ticket = /CHG-\d+/.exec(seen)?.[0];
    }
  }
  const finalAnswer = ticket
    ? `All services are migrated. The change ticket is ${ticket}.`
    : 'All services are migrated. What was the change ticket number again?';
  await say('assistant', finalAnswer);
  return { migrations, finalAnswer, threadId, stores, compactions };
}

function judge(outcome: RunOutcome): boolean {
  return (
    outcome.migrations.length === SERVICES.length &&
    outcome.migrations.every(
      (migration) =>
        migration.replicas === REPLICAS[migration.service] &&
        migration.restart === (migration.service !== 'payments'),
    ) &&
    outcome.finalAnswer.includes(TICKET)
  );
}

async function metricsOf(outcome: RunOutcome, success: boolean) {
  const events = await outcome.stores.events.readAll('tenant-1', outcome.threadId);
  const thread = foldThread(events);
  const firstPlan = plansFromLog(events).get(1);
  const lifecycle = await outcome.stores.lifecycle.list('tenant-1', outcome.threadId);
  return compactionQualityMetrics(thread, {
    compactedAtSeq: firstPlan?.basedOnSeq ?? null,
    taskCompletionSuccess: success,
    automaticRehydrations: lifecycle.filter((event) => event.name === 'compaction_rehydrated').length,
  });
}

describe('task continuation after compaction (seed 002 test plan)', () => {
  it('the default policy compacts mid-task and the agent still completes it, without asking for context', async () => {
    const outcome = await runTask('ladder', {});
    expect(outcome.compactions).toBeGreaterThan(0);
    const success = judge(outcome);
    const metrics = await metricsOf(outcome, success);
    expect(metrics.turnsSinceCompaction).toBeGreaterThan(0);
    expect(metrics).toMatchObject({ agentAskedForContext: false, taskCompletionSuccess: true });
    expect(outcome.migrations.find((migration) => migration.service === 'payments')?.restart).toBe(false);
    expect(outcome.finalAnswer).toContain(TICKET);
  });

  it('control: a two-turn window forgets the constraint and the ticket; the metrics show the loss', async () => {
    // Without the user's own words kept (ADR-0110) and without recall (ADR-0111), which would
    // otherwise bring both back.
    const outcome = await runTask('window', {
      mode: { kind: 'turn-window', maxTurns: 2 },
      keepUserMessages: false,
      recall: { enabled: false },
    });
    expect(outcome.compactions).toBeGreaterThan(0);
    const success = judge(outcome);
    const metrics = await metricsOf(outcome, success);
    expect(metrics.taskCompletionSuccess).toBe(false);
    expect(metrics.agentAskedForContext).toBe(true);
  });
});
