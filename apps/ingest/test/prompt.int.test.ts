import type { ProviderName } from '@compactor/core';
import { validateProviderRequest } from '@compactor/render/validate';
import { createTokenizer } from '@compactor/tokenizer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  appendEvents,
  bearer,
  createThread,
  KEY_A,
  messageEvent,
  startTestIngest,
  type TestIngest,
  toolExchange,
} from './support.js';

const providers: ProviderName[] = ['anthropic', 'openai-chat', 'openai-responses', 'ai-sdk'];
const MODEL = 'claude-sonnet-4-5';
let ingest: TestIngest;

beforeAll(async () => {
  ingest = await startTestIngest();
  await createThread(ingest.app, KEY_A, {
    threadId: 'tools',
    model: MODEL,
    policy: { keepRecentTurns: 1, keepRecentTokens: 0 },
  });
  const events = [];
  for (let turn = 1; turn <= 6; turn += 1) {
    events.push(
      messageEvent('user', `Turn ${turn}: read file ${turn}`),
      ...toolExchange(`call_${turn}`, 'read_file', `line of file ${turn}\n`.repeat(80)),
      messageEvent('assistant', `File ${turn} read.`),
    );
  }
  expect((await appendEvents(ingest.app, KEY_A, 'tools', events)).statusCode).toBe(201);
});
afterAll(async () => {
  await ingest.cleanup();
});

function prompt(query: string) {
  return ingest.app.inject({
    method: 'GET',
    url: `/v1/threads/tools/prompt?${query}`,
    headers: bearer(KEY_A),
  });
}

describe('GET /v1/threads/:id/prompt', () => {
  const tokenizer = createTokenizer({ model: MODEL });

  describe.each(providers)('%s', (provider) => {
    it('renders a valid request with the system prompt when the budget is the window', async () => {
      const response = await prompt(`provider=${provider}&system=${encodeURIComponent('Be brief.')}`);
      expect(response.statusCode).toBe(200);
      const { request, tokens, report } = response.json();
      expect(validateProviderRequest(provider, request)).toEqual({ valid: true, errors: [] });
      expect(JSON.stringify(request)).toContain('Be brief.');
      expect(report).toMatchObject({ provider, threadVersion: 25, emergencyFit: null });
      expect(report.counts.included).toBe(24);
      expect(tokens.total).toBeLessThanOrEqual(report.ceiling);
    });

    it.each([2000, 800])('stays valid and within a budget of %i tokens', async (budget) => {
      const response = await prompt(`provider=${provider}&budget=${budget}`);
      expect(response.statusCode).toBe(200);
      const { request, tokens, report } = response.json();
      expect(validateProviderRequest(provider, request)).toEqual({ valid: true, errors: [] });
      expect(report.ceiling).toBe(budget);
      expect(tokens.total).toBeLessThanOrEqual(budget);
      // Counted again, independently of the renderer, from the request it produced.
      expect(tokenizer.countRequest(request, provider)).toBeLessThanOrEqual(budget);
      // The thread needs more than that, so the render had to fit it (and asks for a compaction).
      expect(report.needsCompaction).toBe(true);
    });
  });

  it('answers 422 with the numbers when not even the newest message fits', async () => {
    // Below the request's own formatting overhead: no valid request exists at all.
    const response = await prompt('provider=anthropic&budget=5');
    expect(response.statusCode).toBe(422);
    const error = response.json().error;
    expect(error.code).toBe('budget_exceeded');
    const { ceiling, system, tools, formatting, protectedTail } = error.details;
    expect(ceiling).toBe(5);
    expect(protectedTail).toBeGreaterThan(0);
    expect(system + tools + formatting + protectedTail).toBeGreaterThan(ceiling);
  });

  it('answers 400 for an unknown provider or a bad budget', async () => {
    const response = await prompt('provider=cohere&budget=-1');
    expect(response.statusCode).toBe(400);
    const paths = response
      .json()
      .error.issues.map((issue: { path: string }) => issue.path)
      .sort();
    expect(paths).toEqual(['query.budget', 'query.provider']);
  });
});
