import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { availableForMessages } from '@compactor/core';
import { createEmbeddedStores } from '@compactor/embedded';
import { createRenderMeasurer, createThreadFoldCache, threadBudget } from '@compactor/engine';
import { measureCompactingCheck } from '@compactor/engine/bench';
import { percentile } from '@compactor/render/bench';
import { createExtractiveSummarizer } from '@compactor/summarizer';
import { tokenizerForThread } from '@compactor/tokenizer';
import { compactedPlan } from './scaling-benchmark.js';
import { appendInBatches, scalingExchangeEvents, scalingThreadEvents } from './synthetic-thread.js';

export interface CompactingCheckRow {
  /** Messages in the thread, appended ones included. */
  messages: number;
  /** Messages appended after the committed plan, enough to go over the target. */
  appended: number;
  coldMs: number;
  p50Ms: number;
  p99Ms: number;
  /** CPU time p50 (user + system): steadier than wall time when others load the machine. */
  cpuP50Ms: number;
  runs: number;
  tokensBefore: number;
  tokensAfter: number;
  target: number;
  status: string;
  /** SHA-256 of the planned plan's JSON (first 12 hex digits): equal plans before and after a change. */
  planHash: string;
}

export interface CompactingCheckBenchResult {
  source: string;
  rows: CompactingCheckRow[];
  /** Each size's p50 over the smallest's. */
  p50RatioToFirst: number[];
}

const TENANT = 'bench';
const CONTEXT_WINDOW = 200_000;
/** Exchanges appended per step while filling the thread over its target. */
const APPEND_STEP = 10;

/**
 * Issue #18's incremental planning curve: a scaling thread of each size, compacted by the scaling bench's
 * plan (all but the last 10 turns hidden) and loaded through the fold cache with that plan (hidden
 * messages compact, ADR-0285), gets exchanges appended until the prompt is over its target; then the
 * compacting check's planning (measure the committed plan, plan from it) is timed `runs` times.
 */
export async function benchCompactingCheck(
  sizes: number[],
  runs: number,
): Promise<CompactingCheckBenchResult> {
  const dataDir = await mkdtemp(join(tmpdir(), 'compactor-compacting-'));
  const stores = await createEmbeddedStores({ dataDir });
  const summarizer = createExtractiveSummarizer();
  try {
    const rows: CompactingCheckRow[] = [];
    for (const size of sizes) {
      const threadId = `compacting-${size}`;
      await appendInBatches(stores.events, TENANT, threadId, scalingThreadEvents(size, CONTEXT_WINDOW));
      const folds = createThreadFoldCache();
      const history = await folds.load(stores.events, TENANT, threadId);
      const plan = compactedPlan(history);
      const target = availableForMessages(threadBudget(history));
      let exchanges = Math.ceil(size / 4);
      let thread = await folds.load(stores.events, TENANT, threadId, plan);
      const tokenizer = tokenizerForThread(thread);
      while (createRenderMeasurer(thread, tokenizer, 'anthropic').measure(plan) <= target) {
        await stores.events.append(TENANT, threadId, scalingExchangeEvents(exchanges, APPEND_STEP));
        exchanges += APPEND_STEP;
        thread = await folds.load(stores.events, TENANT, threadId, plan);
      }
      const measured = await measureCompactingCheck({ thread, plan, tokenizer, summarizer, runs });
      rows.push({
        messages: thread.messages.length,
        appended: thread.messages.length - history.messages.length,
        coldMs: measured.coldMs,
        p50Ms: percentile(measured.samples, 0.5),
        p99Ms: percentile(measured.samples, 0.99),
        cpuP50Ms: percentile(measured.cpuSamples, 0.5),
        runs: measured.samples.length,
        tokensBefore: measured.tokensBefore,
        tokensAfter: measured.last.tokensAfter,
        target: measured.target,
        status: measured.last.status,
        planHash: createHash('sha256').update(JSON.stringify(measured.last.plan)).digest('hex').slice(0, 12),
      });
    }
    return {
      source:
        'synthetic coding-agent threads, compacted, exchanges appended over the target; embedded stores',
      rows,
      p50RatioToFirst: rows.map((row) => row.p50Ms / rows[0]!.p50Ms),
    };
  } finally {
    await stores.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

export function formatCompactingCheckReport(result: CompactingCheckBenchResult): string {
  const lines = [
    `Compacting check (plan from the committed plan) — ${result.source}`,
    'messages  appended  cold ms   p50 ms   p99 ms  ratio  cpu p50 ms  tokens before→after (target)  status  plan',
  ];
  result.rows.forEach((row, index) => {
    lines.push(
      [
        String(row.messages).padStart(8),
        String(row.appended).padStart(9),
        row.coldMs.toFixed(1).padStart(8),
        row.p50Ms.toFixed(1).padStart(8),
        row.p99Ms.toFixed(1).padStart(8),
        result.p50RatioToFirst[index]!.toFixed(2).padStart(6),
        row.cpuP50Ms.toFixed(1).padStart(11),
        `  ${row.tokensBefore}→${row.tokensAfter} (${row.target})`,
        ` ${row.status}`,
        ` ${row.planHash}`,
      ].join(' '),
    );
  });
  return `${lines.join('\n')}\n`;
}
