import { performance } from 'node:perf_hooks';
import { availableForMessages, normalizePlan, planCompaction } from '@compactor/core';
import { createRenderCache } from '@compactor/render';
import { createEmbeddedStores } from '@compactor/embedded';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
const stores = await createEmbeddedStores({ dataDir: await mkdtemp(join(tmpdir(), 'plan2-')) });
import { resolvePlan } from '../../render/src/plan/resolve-plan.js';
import { indexToolExchanges } from '../../render/src/plan/tool-exchanges.js';
import { createExtractiveSummarizer } from '@compactor/summarizer';
import { createTokenizer } from '@compactor/tokenizer';
import { createRenderMeasurer, threadBudget } from '../src/index.js';
import { piThread } from './pi-thread.js';
const thread = await piThread(2000);
const tokenizer = createTokenizer({ model: thread.model });
const measurer = createRenderMeasurer(thread, tokenizer, 'anthropic', createRenderCache());
const out = await planCompaction({ thread, currentPlan: null, targetTokens: availableForMessages(threadBudget(thread)), measure: measurer.measure, countMessage: measurer.countMessage, countText: measurer.countText, summarizer: createExtractiveSummarizer(), now: '2025-01-01T00:00:00.000Z', artifactStore: stores.artifacts });
const normalized = normalizePlan(out.plan);
const ex = indexToolExchanges(thread.messages, undefined);
console.log('exchanges', ex.exchanges.length, 'records', normalized.records.length);
for (let round = 0; round < 20; round++) {
  const s = performance.now();
  for (let i = 0; i < 100; i++) resolvePlan(thread, normalized, ex, undefined, undefined);
  console.log('resolve ms', ((performance.now() - s) / 100).toFixed(3));
}
const s = performance.now();
for (let i = 0; i < 100; i++) normalizePlan(out.plan);
console.log('normalize ms', ((performance.now() - s) / 100).toFixed(3));

await stores.close();
console.log((globalThis as any).__r)
{
  const msgs = thread.messages; const acts = normalized.actions;
  console.log('id sample', msgs[5]!.id, msgs[5]!.id.length, 'actions size', acts.size);
  for (let r = 0; r < 5; r++) {
    let s = performance.now(); let c = 0;
    for (let i = 0; i < 100; i++) for (const m of msgs) if (acts.get(m.id)) c++;
    const a = (performance.now() - s) / 100;
    s = performance.now();
    for (let i = 0; i < 100; i++) for (const m of msgs) if (m.subagentId !== undefined) c++;
    const b = (performance.now() - s) / 100;
    s = performance.now();
    for (let i = 0; i < 100; i++) { const arr: any[] = []; for (let p = 0; p < msgs.length; p++) arr[p] = acts.get(msgs[p]!.id); }
    console.log('get', a.toFixed(3), 'subagent', b.toFixed(3), 'assign', ((performance.now() - s) / 100).toFixed(3), c);
  }
}
