import { describe, expect, it } from 'vitest';
import {
  ACTION_PRECEDENCE,
  actionFor,
  type ClearRecord,
  type CompactionPlan,
  type DropRecord,
  type ExternalizationRecord,
  emptyPlan,
  emptySummary,
  normalizePlan,
  recordsToPlanLists,
  type SummarizationRecord,
  spanOf,
  ValidationError,
} from '../src/index.js';
import { threadBuilder } from './support/testkit.js';

const span = (...messageIds: string[]) => ({ messageIds, firstTurn: 1, lastTurn: 1 });
const drop = (reason: string, ...ids: string[]): DropRecord => ({ kind: 'drop', span: span(...ids), reason });
const clear = (...ids: string[]): ClearRecord => ({ kind: 'clear', span: span(...ids), preserved: [] });
const summarize = (task: string, ...ids: string[]): SummarizationRecord => ({
  kind: 'summarize',
  span: span(...ids),
  summary: { ...emptySummary(), currentTask: task },
  summaryTokenCount: 10,
  round: 1,
});
const externalize = (artifactId: string, ...ids: string[]): ExternalizationRecord => ({
  kind: 'externalize',
  span: span(...ids),
  artifactId,
  summary: emptySummary(),
  rehydrateHint: 'read it',
  sensitivity: 'internal',
});

function plan(lists: Partial<CompactionPlan>): CompactionPlan {
  return { ...emptyPlan('t1', '2025-01-01T00:00:00Z', 4), ...lists };
}

describe('emptyPlan and spanOf', () => {
  it('make an empty version-0 plan', () => {
    expect(emptyPlan('t1', 'now')).toMatchObject({
      threadId: 't1',
      version: 0,
      basedOnSeq: 0,
      createdAt: 'now',
      formatVersion: 'v1',
      drops: [],
    });
    expect(emptyPlan('t1', 'now', 7).basedOnSeq).toBe(7);
  });

  it('build a span from messages in order, with the turns of its ends', () => {
    const { thread } = threadBuilder().user('a').assistant('b').user('c').assistant('d').build();
    expect(spanOf(thread.messages.slice(1, 4))).toEqual({
      messageIds: ['m2', 'm3', 'm4'],
      firstTurn: 1,
      lastTurn: 2,
    });
    expect(() => spanOf([])).toThrow(ValidationError);
  });
});

describe('normalizePlan', () => {
  it('ranks drop over externalize over summarize over clear over abridge over include (ADR-0003, ADR-0265, ADR-0311)', () => {
    expect(ACTION_PRECEDENCE).toEqual({
      drop: 5,
      externalize: 4,
      summarize: 3,
      clear: 2,
      abridge: 1,
      include: 0,
    });
    const normalized = normalizePlan(
      plan({
        clearings: [clear('m1', 'm2', 'm3', 'm4')],
        summarizations: [summarize('s', 'm2', 'm3', 'm4')],
        externalizations: [externalize('a1', 'm3', 'm4')],
        drops: [drop('old', 'm4')],
      }),
    );
    expect(['m1', 'm2', 'm3', 'm4', 'm5'].map((id) => actionFor(normalized, id))).toEqual([
      'clear',
      'summarize',
      'externalize',
      'drop',
      'include',
    ]);
  });

  it('reduces each record to the ids it owns and removes records left empty', () => {
    const losing = summarize('loses everything', 'm2');
    const normalized = normalizePlan(
      plan({
        clearings: [clear('m1', 'm2', 'm3')],
        summarizations: [losing],
        drops: [drop('x', 'm2')],
      }),
    );
    expect(normalized.records).toEqual([drop('x', 'm2'), { ...clear('m1', 'm3') }]);
    expect(normalized.records).not.toContainEqual(losing);
    expect(recordsToPlanLists(normalized.records)).toEqual({
      externalizations: [],
      summarizations: [],
      clearings: [clear('m1', 'm3')],
      drops: [drop('x', 'm2')],
      abridgements: [],
    });
  });

  it('lets the earlier of two records of the same kind keep a shared message', () => {
    const normalized = normalizePlan(
      plan({ summarizations: [summarize('first', 'm1', 'm2'), summarize('second', 'm2', 'm3')] }),
    );
    const owner = normalized.actions.get('m2')?.record as SummarizationRecord;
    expect(owner.summary.currentTask).toBe('first');
    expect(normalized.records.map((record) => record.span.messageIds)).toEqual([['m1', 'm2'], ['m3']]);
  });

  it('reports every conflict it resolves, and none for a plan without overlaps', () => {
    const normalized = normalizePlan(
      plan({
        clearings: [clear('m1', 'm2')],
        drops: [drop('x', 'm2')],
        summarizations: [summarize('s', 'm1')],
      }),
    );
    expect(normalized.warnings).toEqual([
      'message m1 is in both a summarize and a clear record; summarize takes precedence',
      'message m2 is in both a drop and a clear record; drop takes precedence',
    ]);
    expect(normalizePlan(plan({ clearings: [clear('m1')], drops: [drop('x', 'm2')] })).warnings).toEqual([]);
  });

  it('keeps the plan it was given and leaves it unchanged', () => {
    const input = plan({ clearings: [clear('m1', 'm2')], drops: [drop('x', 'm2')] });
    const before = structuredClone(input);
    const normalized = normalizePlan(input);
    expect(normalized.plan).toBe(input);
    expect(input).toEqual(before);
  });

  it('includes every message of an empty plan', () => {
    const normalized = normalizePlan(plan({}));
    expect(normalized.actions.size).toBe(0);
    expect(normalized.records).toEqual([]);
    expect(actionFor(normalized, 'anything')).toBe('include');
  });
});
