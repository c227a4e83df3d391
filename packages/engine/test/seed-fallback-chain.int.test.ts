import { fixedClock, normalizePlan, summaryText } from '@compactor/core';
import {
  createAnthropicSummarizer,
  createExtractiveSummarizer,
  createResilientSummarizer,
} from '@compactor/summarizer';
import { startFakeMessagesApi } from '@compactor/testkit/fake-messages-api';
import { asInputs } from '@compactor/testkit/sessions';
import { threadBuilder } from '@compactor/testkit/thread-builder';
import { afterEach, describe, expect, it } from 'vitest';
import { createCompactionEngine } from '../src/index.js';
import { withEmbeddedStores } from './support.js';

/**
 * The `seed-000` preset's last resort, end to end: the model fails (the real SDK against the fake Messages API,
 * answering 500), the extractive pass throws, and the summary committed through engine.check is the
 * span's transcript cut to its first 2,000 and last 2,000 characters with the cut marked (ADR-0017).
 */
const clock = fixedClock('2025-06-01T00:00:00.000Z');
const TENANT = 'tenant-1';
let cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups) await cleanup();
  cleanups = [];
});

describe('the fallback chain’s last link through the engine', () => {
  it('LLM fails, extractive throws → head 2,000 + [truncated N characters] + tail 2,000', async () => {
    const api = await startFakeMessagesApi();
    cleanups.push(() => api.close());
    const { stores, cleanup } = await withEmbeddedStores();
    cleanups.push(cleanup);
    const builder = threadBuilder('chain', { policy: { preset: 'seed-000' } as never });
    for (let turn = 1; turn <= 30; turn += 1) {
      builder
        .user(`Turn ${turn}: FIRST-MARK-${turn} what changed?`)
        .assistant(
          `Answer ${turn}: ${'the retry loop in module alpha now backs off. '.repeat(400)}END-${turn}`,
        );
    }
    await stores.events.append(TENANT, 'chain', asInputs(builder.build().events));
    const extractive = createExtractiveSummarizer();
    const extractiveCalls: number[] = [];
    const summarizer = createResilientSummarizer({
      primary: createAnthropicSummarizer({ apiKey: 'test', baseURL: api.url, attempts: 1, baseDelayMs: 1 }),
      extractive: {
        id: extractive.id,
        modelId: extractive.modelId,
        promptVersion: extractive.promptVersion,
        extract: () => {
          extractiveCalls.push(1);
          throw new Error('extractive pass failed');
        },
      },
    });
    const engine = createCompactionEngine({ ...stores, summarizer, clock });
    const result = await engine.check(TENANT, 'chain');
    expect(result.trigger).toMatchObject({ trigger: 'tokens>=80000', fire: true });
    expect(result.commit).toEqual({ status: 'committed', version: 1 });
    expect(api.requests.length).toBeGreaterThan(0);
    expect(extractiveCalls.length).toBeGreaterThan(0);
    const { plan } = await stores.plans.getCurrent(TENANT, 'chain');
    const [record] = normalizePlan(plan!).records.filter((candidate) => candidate.kind === 'summarize');
    expect(record?.kind).toBe('summarize');
    if (record?.kind !== 'summarize') return;
    expect(record.summarizer?.id).toBe('truncation');
    const excerpt = record.summary.facts[0]!.text;
    const prefix = 'Transcript excerpt (summarization failed): ';
    expect(excerpt.startsWith(prefix)).toBe(true);
    const body = excerpt.slice(prefix.length);
    const match = /^([\s\S]{2000})\n\[truncated (\d+) characters\]\n([\s\S]{2000})$/.exec(body);
    expect(match).not.toBeNull();
    // The head starts with the span's first message; the tail ends with its last one.
    expect(match![1]).toContain('FIRST-MARK-1 ');
    expect(Number(match![2])).toBeGreaterThan(100_000);
    expect(match![3]).toMatch(/END-\d+$/);
    expect(summaryText(record)).toContain('[truncated');
  });
});
