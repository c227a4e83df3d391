import { describe, expect, it } from 'vitest';
import { emptyPlan, planAsStored, plansFromLog, type StoredEvent } from '../src/index.js';

describe('plans read back from storage (ADR-0290)', () => {
  it('a plan written before abridge records existed gets an empty list; a current one is the same object', () => {
    const current = emptyPlan('th', '2026-11-24T00:00:00Z', 3);
    expect(planAsStored(current)).toBe(current);
    const { abridgements: _, ...older } = current;
    expect(planAsStored(older as typeof current)).toEqual(current);
  });

  it('plansFromLog rebuilds an older plan.committed event with the list', () => {
    const { abridgements: _, ...older } = emptyPlan('th', '2026-11-24T00:00:00Z', 3);
    const event = {
      type: 'plan.committed',
      planVersion: 1,
      plan: { ...older, version: 1 },
      eventId: 'plan.committed:1',
      tenantId: 't',
      threadId: 'th',
      seq: 4,
      timestamp: '2026-11-24T00:00:00Z',
    } as unknown as StoredEvent;
    expect(plansFromLog([event]).get(1)?.abridgements).toEqual([]);
  });
});
