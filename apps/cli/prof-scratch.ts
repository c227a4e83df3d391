import { extendThread, foldThreadEvents, type StoredEvent } from '@compactor/core';
import { createRenderCache, renderPromptSync } from '@compactor/render';
import { benchBudget, benchPlan, benchSystem, benchTools } from '@compactor/render/bench';
import { tokenizerForThread } from '@compactor/tokenizer';
import { scalingAppendEvent, scalingThreadEvents } from './src/bench/synthetic-thread.js';

const n = Number(process.argv[2] ?? 10000);
const stored = (inputs: any[], from = 1) =>
  inputs.map(
    (e, i) =>
      ({
        ...e,
        tenantId: 't',
        threadId: 'x',
        seq: from + i,
        timestamp: '2025-01-01T00:00:00.000Z',
      }) as StoredEvent,
  );
const events = stored(scalingThreadEvents(n, 200000));
let fold = foldThreadEvents(events);
const bp = benchPlan(fold.thread);
const plan = {
  ...bp,
  clearings: [],
  drops: [...bp.drops, ...bp.clearings.map((r) => ({ kind: 'drop' as const, span: r.span, reason: 'x' }))],
};
const cache = createRenderCache();
const tokenizer = tokenizerForThread(fold.thread);
const noRecall = process.argv[3] === 'norecall';
const r = () =>
  renderPromptSync({
    thread: noRecall
      ? {
          ...fold.thread,
          policy: { ...fold.thread.policy, recall: { ...fold.thread.policy.recall, enabled: false } },
        }
      : fold.thread,
    plan: process.argv[4] === 'clone' ? structuredClone(plan) : plan,
    system: benchSystem,
    tools: benchTools,
    budget: benchBudget,
    provider: 'anthropic',
    tokenizer,
    cache,
  });
r();
let seq = events.length + 1;
const times: number[] = [];
for (let i = 0; i < 200; i++) {
  fold = extendThread(fold, stored([scalingAppendEvent(i)], seq++));
  const s = performance.now();
  r();
  times.push(performance.now() - s);
}
times.sort((a, b) => a - b);
console.log(n, 'p50', times[100].toFixed(3), 'stats', cache.stats);
