import { clipPasted, foldThread, type StoredEvent, spanOf, splitPasted } from '@compactor/core';
import { describe, expect, it } from 'vitest';
import { createExtractiveSummarizer } from '../src/index.js';

const log = Array.from(
  { length: 60 },
  (_, index) => `2026-11-24T09:${String(index).padStart(2, '0')}:00Z INFO worker ${index} processed batch`,
);
log.push('2026-11-24T10:00:00Z ERROR worker 60 failed: connection refused (ECONNREFUSED 10.0.0.7:5432)');

describe('pasted material in a user message (ADR-0164)', () => {
  const message = `The worker keeps crashing overnight. Here is the log:\n${log.join('\n')}\nNever restart the database without asking me.`;

  it('splits what the person said from what they pasted', () => {
    const split = splitPasted(message);
    expect(split.pasted).toHaveLength(1);
    expect(split.pasted[0]).toHaveLength(61);
    expect(split.prose).toBe(
      'The worker keeps crashing overnight. Here is the log:\nNever restart the database without asking me.',
    );
    const fenced = splitPasted('Why does this fail?\n```ts\nconst a = 1;\n```\nThanks.');
    expect(fenced.pasted).toEqual([['const a = 1;']]);
    expect(splitPasted('Just a normal request, two lines.\nNothing pasted here.').pasted).toEqual([]);
  });

  it('keeps the head and the tail of a pasted log, so the error at the bottom survives', () => {
    const kept = clipPasted(message, 600);
    expect(kept).toContain('The worker keeps crashing overnight.');
    expect(kept).toContain('Never restart the database without asking me.');
    expect(kept).toContain('[pasted 61 lines, 55 in the middle left out]');
    expect(kept).toContain('worker 0 processed batch');
    expect(kept).toContain('ECONNREFUSED 10.0.0.7:5432');
    expect(kept).not.toContain('worker 30 processed batch');
    expect(kept.length).toBeLessThan(1200);
  });

  it('the summary keeps the clipped request and pins only the person’s own constraint', () => {
    const base = { tenantId: 't', threadId: 'th', timestamp: '2026-01-01T00:00:00.000Z' };
    const events: StoredEvent[] = [
      {
        ...base,
        eventId: 'e0',
        seq: 1,
        type: 'thread.created',
        model: 'claude-sonnet-4-5',
        contextWindow: 200000,
      },
      {
        ...base,
        eventId: 'e1',
        seq: 2,
        type: 'message.appended',
        message: {
          id: 'u1',
          role: 'user',
          content: [
            {
              type: 'text',
              text: message.replace(
                'INFO worker 7 processed batch',
                'ERROR worker 7: value must not be null',
              ),
            },
          ],
        },
      },
    ];
    const thread = foldThread(events);
    const summary = createExtractiveSummarizer().extract({
      tenantId: 't',
      threadId: 'th',
      span: spanOf(thread.messages),
      messages: thread.messages,
    });
    const request = summary.facts.find((fact) => fact.text.startsWith('User request'))!;
    expect(request.text).toContain('ECONNREFUSED');
    expect(summary.facts.filter((fact) => fact.pinned).map((fact) => fact.text)).toEqual([
      'User constraint (turn 1): Never restart the database without asking me.',
    ]);
  });
});
