/**
 * A provider's opaque part over HTTP (ADR-0250): an event carrying an Anthropic compaction block or an
 * OpenAI encrypted reasoning item is accepted by the ingest, and `/prompt` sends it back verbatim for
 * its own provider only.
 */
import type { ProviderName } from '@compactor/core';
import { validateProviderRequest } from '@compactor/render/validate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  appendEvents,
  bearer,
  createThread,
  KEY_A,
  messageEvent,
  startTestIngest,
  type TestIngest,
} from './support.js';

const COMPACTION = {
  type: 'compaction',
  content: 'The user deploys service A on port 9090.',
  encrypted_content: 'ZW5jcnlwdGVk',
  signature: 'c2lnbmVk',
  tool_changes: [],
};
const REASONING = {
  type: 'reasoning',
  id: 'rs_42',
  summary: [{ type: 'summary_text', text: 'Thought about ports.' }],
  encrypted_content: 'gAAAAB-reasoning',
};
let ingest: TestIngest;

beforeAll(async () => {
  ingest = await startTestIngest();
  await createThread(ingest.app, KEY_A, { threadId: 'opaque', model: 'claude-sonnet-4-5' });
  const response = await appendEvents(ingest.app, KEY_A, 'opaque', [
    messageEvent('user', 'Deploy service A.'),
    {
      eventId: 'server-compaction',
      type: 'message.appended',
      message: {
        id: 'compaction',
        role: 'assistant',
        content: [{ type: 'opaque', provider: 'anthropic', payload: COMPACTION }],
      },
    },
    messageEvent('user', 'Which port?'),
    {
      eventId: 'server-reasoning',
      type: 'message.appended',
      message: {
        id: 'reasoning',
        role: 'assistant',
        content: [
          { type: 'opaque', provider: 'openai-responses', payload: REASONING },
          { type: 'text', text: 'Port 9090.' },
        ],
      },
    },
  ]);
  expect(response.statusCode).toBe(201);
});
afterAll(async () => {
  await ingest.cleanup();
});

async function prompt(provider: ProviderName) {
  const response = await ingest.app.inject({
    method: 'POST',
    url: '/v1/threads/opaque/prompt',
    headers: bearer(KEY_A),
    payload: { provider, system: 'Be brief.' },
  });
  expect(response.statusCode).toBe(200);
  const body = response.json();
  expect(validateProviderRequest(provider, body.request)).toEqual({ valid: true, errors: [] });
  return body;
}

describe('opaque provider parts over HTTP (ADR-0250)', () => {
  it('sends the compaction block back to Anthropic verbatim, opening the request', async () => {
    const { request, report } = await prompt('anthropic');
    expect(JSON.stringify(request.messages[0])).toBe(
      JSON.stringify({ role: 'assistant', content: [COMPACTION] }),
    );
    expect(JSON.stringify(request)).not.toContain('Deploy service A.');
    expect(JSON.stringify(request)).not.toContain(REASONING.encrypted_content);
    expect(report.opaque).toEqual({ sent: 1, omitted: 1, beforeServerCompaction: 1 });
  });

  it('sends the reasoning item back to the Responses API verbatim, in place', async () => {
    const { request, report } = await prompt('openai-responses');
    const types = request.input.map((item: { type?: string }) => item.type ?? 'message');
    expect(types.slice(-2)).toEqual(['reasoning', 'message']);
    expect(JSON.stringify(request.input.at(-2))).toBe(JSON.stringify(REASONING));
    expect(JSON.stringify(request)).not.toContain(COMPACTION.signature);
    expect(report.opaque).toEqual({ sent: 1, omitted: 1, beforeServerCompaction: 0 });
  });

  it('leaves both out of the other formats and says so', async () => {
    for (const provider of ['openai-chat', 'ai-sdk'] as const) {
      const { request, report } = await prompt(provider);
      expect(JSON.stringify(request)).not.toContain(COMPACTION.signature);
      expect(JSON.stringify(request)).not.toContain(REASONING.encrypted_content);
      expect(report.opaque.omitted).toBe(2);
    }
  });

  it('rejects an opaque part in a user message', async () => {
    const response = await appendEvents(ingest.app, KEY_A, 'opaque', [
      {
        eventId: 'bad',
        type: 'message.appended',
        message: {
          id: 'bad',
          role: 'user',
          content: [{ type: 'opaque', provider: 'anthropic', payload: COMPACTION }],
        },
      },
    ]);
    expect(response.statusCode).toBe(400);
  });
});
