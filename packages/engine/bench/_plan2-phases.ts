import { performance } from 'node:perf_hooks';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { availableForMessages, LADDER, planCompaction } from '@compactor/core';
import { createEmbeddedStores } from '@compactor/embedded';
import { createRenderCache } from '@compactor/render';
import { createExtractiveSummarizer } from '@compactor/summarizer';
import { createTokenizer } from '@compactor/tokenizer';
import { createRenderMeasurer, threadBudget } from '../src/index.js';
import { piThread } from './pi-thread.js';

const thread = await piThread(2000);
const tokenizer = createTokenizer({ model: thread.model });
const stores = await createEmbeddedStores({ dataDir: await mkdtemp(join(tmpdir(), 'plan2-')) });
const summarizer = createExtractiveSummarizer();
const target = availableForMessages(threadBudget(thread));
const cache = createRenderCache();
const t: Record<string, number> = {};
const n: Record<string, number> = {};
const add = (k: string, ms: number) => { t[k] = (t[k] ?? 0) + ms; n[k] = (n[k] ?? 0) + 1; };
for (const rung of LADDER as any[]) {
  const a = rung.analyze, e = rung.execute;
  rung.analyze = (c: any) => { const s = performance.now(); const r = a(c); add(`analyze ${rung.name}`, performance.now() - s); return r; };
  rung.execute = async (c: any, p: any) => { const s = performance.now(); const r = await e(c, p); add(`execute ${rung.name}`, performance.now() - s); return r; };
}
const RUNS = Number(process.env.RUNS ?? 21);
const withStore = process.env.NOSTORE ? false : true;
let total = 0;
for (let i = 0; i < RUNS + 1; i++) {
  const measurer = createRenderMeasurer(thread, tokenizer, 'anthropic', cache);
  if (i === 1) { for (const k in t) { t[k] = 0; n[k] = 0; } }
  const s = performance.now();
  const out = await planCompaction({
    thread, currentPlan: null, targetTokens: target,
    measure: (p) => { const s = performance.now(); const r = measurer.measure(p); add(p.summarizations.length + p.externalizations.length + p.abridgements.length === 0 ? 'measure empty' : 'measure', performance.now() - s); return r; },
    countMessage: (m) => { const s = performance.now(); const r = measurer.countMessage(m); add('countMessage', performance.now() - s); return r; },
    countText: (x) => { const s = performance.now(); const r = measurer.countText(x); add('countText', performance.now() - s); return r; },
    summarizer, now: '2025-01-01T00:00:00.000Z', ...(withStore ? { artifactStore: stores.artifacts } : {}),
  });
  if (i > 0) total += performance.now() - s;
  if (i === RUNS) console.log(out.added.map((r: any) => r.kind).join(','));
}
console.log('mean plan ms', (total / RUNS).toFixed(1));
for (const k of Object.keys(t).sort()) console.log(k.padEnd(22), (t[k]! / RUNS).toFixed(2), 'ms/plan', (n[k]! / RUNS).toFixed(1), 'calls/plan');
await stores.close();
const T=(globalThis as any).__t; for (const k in T) console.log('mc', k, (T[k]/(RUNS+1)).toFixed(2), 'ms/plan');
console.log(JSON.stringify((globalThis as any).__c))
