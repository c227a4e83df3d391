import { describe, expect, it } from 'vitest';
import type { Plan } from '../ui/api.js';
import { planActions } from '../ui/plan-actions.js';

const base = {
  formatVersion: 'v1',
  threadId: 't',
  version: 1,
  basedOnSeq: 3,
  createdAt: '2026-11-24T00:00:00.000Z',
  policyVersion: '1',
  originalTokenCount: 100,
  compactedTokenCount: 50,
  summarizations: [],
  externalizations: [],
  clearings: [{ kind: 'clear', span: { messageIds: ['m2'] } }],
  drops: [],
};

describe('what the timeline shows for each message (core precedence)', () => {
  it('reads a plan written before abridge records existed', () => {
    const action = planActions(base as unknown as Plan);
    expect(action('m2')).toBe('clear');
    expect(action('m1')).toBe('include');
  });

  it('shows an abridged message as abridged (ADR-0265)', () => {
    const plan = { ...base, abridgements: [{ kind: 'abridge', span: { messageIds: ['m1'] }, parts: [] }] };
    const action = planActions(plan as unknown as Plan);
    expect(action('m1')).toBe('abridge');
    expect(action('m2')).toBe('clear');
  });
});
