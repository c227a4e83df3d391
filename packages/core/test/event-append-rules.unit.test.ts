import { describe, expect, it } from 'vitest';
import {
  canonicalEventContent,
  checkThreadRules,
  type EventInput,
  type FreshEvent,
  markEventBatchValidated,
  parseEventBatch,
  requireIds,
  ValidationError,
} from '../src/index.js';

const created: EventInput = { eventId: 'c', type: 'thread.created', model: 'm', contextWindow: 1000 };
function message(eventId: string, messageId: string): EventInput {
  return {
    eventId,
    type: 'message.appended',
    message: { id: messageId, role: 'user', content: [{ type: 'text', text: 'hi' }] },
  };
}
function fresh(...inputs: EventInput[]): FreshEvent[] {
  return inputs.map((input, position) => ({ input, position }));
}
function thrown(action: () => void): ValidationError {
  try {
    action();
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error('expected a ValidationError');
}

describe('parseEventBatch', () => {
  it('returns the validated events', () => {
    const parsed = parseEventBatch([created, message('e', 'm')]);
    expect(parsed.map((event) => event.eventId)).toEqual(['c', 'e']);
  });

  it('reports every bad event with paths starting at its batch index', () => {
    const bad = {
      eventId: 'x',
      type: 'message.appended',
      message: { id: 'm', role: 'robot', content: [{ type: 'text', text: 'x' }] },
    };
    const error = thrown(() =>
      parseEventBatch([created, bad as unknown as EventInput, { eventId: '' } as EventInput]),
    );
    const paths = error.issues.map((issue) => issue.path);
    expect(paths.some((path) => path.startsWith('1.message'))).toBe(true);
    expect(paths.some((path) => path.startsWith('2'))).toBe(true);
    expect(paths.some((path) => path.startsWith('0'))).toBe(false);
  });

  it('rejects an empty batch and a repeated event id', () => {
    thrown(() => parseEventBatch([]));
    const repeated = thrown(() => parseEventBatch([message('e', 'a'), message('e', 'b')]));
    expect(repeated.issues).toEqual([{ path: '1.eventId', message: expect.stringContaining('twice') }]);
  });
});

describe('markEventBatchValidated', () => {
  it('lets a marked batch skip the schema parse, still refusing repeated ids', () => {
    // Not schema-valid (no message): parsed it fails; marked, the caller vouches for it.
    const unparsed = [{ eventId: 'x', type: 'message.appended' }] as unknown as EventInput[];
    expect(() => parseEventBatch([...unparsed])).toThrow(ValidationError);
    const marked = markEventBatchValidated(unparsed);
    expect(parseEventBatch(marked)).toEqual(unparsed);
    const repeated = markEventBatchValidated([message('a', 'm1'), message('a', 'm2')]);
    expect(thrown(() => parseEventBatch(repeated)).issues.map((issue) => issue.path)).toEqual(['1.eventId']);
  });

  it('marks only that array: a copy of it is parsed again', () => {
    const marked = markEventBatchValidated([
      { eventId: 'x', type: 'message.appended' },
    ] as unknown as EventInput[]);
    expect(() => parseEventBatch([...marked])).toThrow(ValidationError);
  });
});

describe('requireIds', () => {
  it('accepts non-empty strings and names each empty one', () => {
    requireIds({ tenantId: 't', threadId: 'x' });
    expect(
      thrown(() => requireIds({ tenantId: '', threadId: '' })).issues.map((issue) => issue.path),
    ).toEqual(['tenantId', 'threadId']);
  });
});

describe('checkThreadRules', () => {
  it('needs thread.created first in a new thread, and nowhere else', () => {
    checkThreadRules(false, fresh(created, message('e', 'm')), new Set());
    expect(thrown(() => checkThreadRules(false, fresh(message('e', 'm')), new Set())).issues[0]?.path).toBe(
      '0.type',
    );
    expect(
      thrown(() => checkThreadRules(false, fresh(created, { ...created, eventId: 'c2' }), new Set()))
        .issues[0]?.path,
    ).toBe('1.type');
    expect(thrown(() => checkThreadRules(true, fresh(created), new Set())).issues[0]?.path).toBe('0.type');
  });

  it('refuses a message id already in the thread or repeated in the batch, at the event’s batch position', () => {
    const batch: FreshEvent[] = [
      { input: message('e-1', 'm-1'), position: 1 },
      { input: message('e-2', 'm-2'), position: 3 },
    ];
    checkThreadRules(true, batch, new Set(['m-0']));
    expect(thrown(() => checkThreadRules(true, batch, new Set(['m-2']))).issues[0]?.path).toBe(
      '3.message.id',
    );
    const repeated = fresh(message('e-1', 'same'), message('e-2', 'same'));
    expect(thrown(() => checkThreadRules(true, repeated, new Set())).issues[0]?.path).toBe('1.message.id');
  });
});

describe('canonicalEventContent', () => {
  it('ignores the timestamp and where the event was stored, not its content', () => {
    const stored = {
      ...message('e', 'm'),
      tenantId: 't',
      threadId: 'x',
      seq: 4,
      timestamp: '2025-01-01T00:00:00Z',
    };
    expect(canonicalEventContent(stored as never)).toBe(canonicalEventContent(message('e', 'm')));
    expect(canonicalEventContent(message('e', 'other'))).not.toBe(canonicalEventContent(message('e', 'm')));
  });
});
