import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { foldThread, type StoredEvent, tokenBudget } from '@compactor/core';
import { importTranscript } from '@compactor/importers';
import { describe, expect, it } from 'vitest';
import { benchPlan } from '../bench/bench-plan.js';
import { corpusAvailable, corpusDirectory } from '../bench/corpus-thread.js';
import { createRenderCache, renderPromptSync } from '../src/index.js';
import { validateProviderRequest } from '../src/validate/index.js';
import { TOOLS } from './support/fixtures.js';
import { independentCount, PROVIDERS, tokenizerFor } from './support/tokenizers.js';

const SESSIONS = ['session.jsonl', 'large-session.jsonl', 'compact.jsonl', 'before-compaction.jsonl'];

function piThread(file: string) {
  const text = readFileSync(join(corpusDirectory, 'pi', file), 'utf8');
  const imported = importTranscript({ text, fileName: file }, { threadId: file.replace('.jsonl', '') });
  const events = imported.events.map(
    (event, index): StoredEvent =>
      ({
        ...event,
        tenantId: 'corpus',
        threadId: imported.threadId,
        seq: index + 1,
        timestamp: new Date(Date.UTC(2025, 0, 1) + index * 1000).toISOString(),
      }) as StoredEvent,
  );
  return foldThread(events);
}

describe.skipIf(!corpusAvailable)('real pi sessions (needs ../shared/corpus)', () => {
  for (const file of SESSIONS) {
    it(`renders ${file} valid and within a 200k window for every provider, with and without a plan`, () => {
      const thread = piThread(file);
      const plan = benchPlan(thread, 20);
      const budget = tokenBudget({
        maxInputTokens: 200_000,
        outputReserveTokens: 16_384,
        safetyBufferTokens: 500,
      });
      for (const provider of PROVIDERS) {
        const cache = createRenderCache();
        for (const candidate of [null, plan]) {
          const input = {
            thread,
            plan: candidate,
            system: 'You are a coding agent.',
            tools: TOOLS,
            budget,
            provider,
            tokenizer: tokenizerFor(provider),
            cache,
          };
          const result = renderPromptSync(input);
          expect(validateProviderRequest(provider, result.request).errors.slice(0, 3)).toEqual([]);
          expect(result.tokens.total).toBeLessThanOrEqual(result.report.ceiling);
          expect(independentCount(provider, result.request)).toBeLessThanOrEqual(result.tokens.total);
          expect(JSON.stringify(renderPromptSync(input))).toBe(JSON.stringify(result));
          // The largest session (~360k tokens) only fits through the emergency fit when nothing is planned.
          if (file === 'before-compaction.jsonl' && candidate === null) {
            expect(result.report.emergencyFit?.dropped.length).toBeGreaterThan(0);
          }
        }
      }
    }, 120_000);
  }
});
