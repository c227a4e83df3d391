import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mergeSummaries, renderSummary, structuredSummarySchema, trimSummaryToBudget } from '../src/index.js';
import { arbitraryStructuredSummary } from './support/testkit.js';

const countText = (text: string) => Math.ceil(text.length / 4);

describe('trimSummaryToBudget', () => {
  const summary = structuredSummarySchema.parse({
    currentTask: 'Answer questions about the garden',
    facts: [
      { text: 'Never water after 6pm', pinned: true },
      ...Array.from({ length: 40 }, (_, index) => ({
        text: `turn ${index + 1}: planted row ${index + 1} with beans`,
      })),
    ],
    toolOutcomes: [
      { toolName: 'order', outcome: 'success', keyFields: { order_id: 'ORD-1' } },
      ...Array.from({ length: 10 }, (_, index) => ({
        toolName: 'ls',
        outcome: 'success' as const,
        keyFields: {},
      })).map((outcome, index) => ({ ...outcome, toolCallId: `c${index}` })),
    ],
    filesModified: ['garden.md'],
  });

  it('returns a summary that already fits unchanged', () => {
    expect(trimSummaryToBudget(summary, 10_000, countText)).toBe(summary);
  });

  it('fits the budget, keeps every guarantee, and thins evenly instead of forgetting the oldest', () => {
    const trimmed = trimSummaryToBudget(summary, 150, countText);
    expect(countText(renderSummary(trimmed))).toBeLessThanOrEqual(150);
    expect(trimmed.facts).toContainEqual({ text: 'Never water after 6pm', pinned: true });
    expect(trimmed.toolOutcomes).toContainEqual(
      expect.objectContaining({ keyFields: { order_id: 'ORD-1' } }),
    );
    expect(trimmed.filesModified).toEqual(['garden.md']);
    expect(trimmed.currentTask).toBe('Answer questions about the garden');
    const loose = trimmed.facts.filter((fact) => !fact.pinned).map((fact) => fact.text);
    expect(loose.length).toBeGreaterThan(1);
    expect(loose[0]).toBe('turn 1: planted row 1 with beans');
    expect(loose.at(-1)).toBe('turn 40: planted row 40 with beans');
  });

  it('never loses an artifact: each is listed or held outside the text, whatever the budget, and merges keep them (ADR-0330)', () => {
    const artifact = fc.record({
      artifactId: fc.stringMatching(/^art_[0-9a-f]{8}$/),
      description: fc.constantFrom('image (image/png) of turn 3', 'read_file output', 'full user message'),
      rehydrateHint: fc.string({ maxLength: 40 }),
    });
    fc.assert(
      fc.property(
        arbitraryStructuredSummary(),
        fc.uniqueArray(artifact, { selector: (entry) => entry.artifactId, maxLength: 12 }),
        fc.integer({ min: 1, max: 400 }),
        (random, artifacts, budget) => {
          const withArtifacts = { ...random, artifacts };
          const trimmed = trimSummaryToBudget(withArtifacts, budget, countText);
          const held = [...trimmed.artifacts, ...(trimmed.externalizedArtifacts ?? [])];
          expect(held.map((entry) => entry.artifactId).sort()).toEqual(
            artifacts.map((entry) => entry.artifactId).sort(),
          );
          // The rendered text is what it was: the trim decides by it, the held list costs nothing.
          const listedOnly = { ...trimmed, externalizedArtifacts: undefined };
          expect(renderSummary(trimmed)).toBe(renderSummary(listedOnly));
          const merged = mergeSummaries(trimmed, structuredSummarySchema.parse({}));
          expect(
            [...merged.artifacts, ...(merged.externalizedArtifacts ?? [])]
              .map((entry) => entry.artifactId)
              .sort(),
          ).toEqual(artifacts.map((entry) => entry.artifactId).sort());
        },
      ),
      { numRuns: 100 },
    );
  });

  it('never loses a pinned fact: each is rendered or held behind the pointer, whatever the budget', () => {
    fc.assert(
      fc.property(arbitraryStructuredSummary(), fc.integer({ min: 1, max: 400 }), (random, budget) => {
        const trimmed = trimSummaryToBudget(random, budget, countText);
        const held = [...trimmed.facts, ...(trimmed.externalizedFacts ?? [])];
        for (const fact of random.facts.filter((candidate) => candidate.pinned))
          expect(held).toContainEqual(fact);
        if ((trimmed.externalizedFacts ?? []).length > 0)
          expect(renderSummary(trimmed)).toContain('held outside this summary');
      }),
      { numRuns: 100 },
    );
  });

  it('keeps key fields while anything looser can go instead', () => {
    fc.assert(
      fc.property(arbitraryStructuredSummary(), fc.integer({ min: 1, max: 400 }), (random, budget) => {
        const trimmed = trimSummaryToBudget(random, budget, countText);
        const anchored = random.toolOutcomes.filter(
          (candidate) => Object.keys(candidate.keyFields).length > 0,
        );
        const looseLeft = trimmed.facts.some((fact) => !fact.pinned) || trimmed.decisions.length > 0;
        if (looseLeft) for (const outcome of anchored) expect(trimmed.toolOutcomes).toContainEqual(outcome);
      }),
      { numRuns: 100 },
    );
  });

  it('always fits when the budget holds the pointer and the newest pinned fact (ADR-0161)', () => {
    fc.assert(
      fc.property(arbitraryStructuredSummary(), fc.integer({ min: 1, max: 400 }), (random, budget) => {
        const trimmed = trimSummaryToBudget(random, budget, countText);
        const floor = trimSummaryToBudget(random, 0, countText);
        if (countText(renderSummary(floor)) <= budget)
          expect(countText(renderSummary(trimmed))).toBeLessThanOrEqual(budget);
      }),
      { numRuns: 100 },
    );
  });

  it('a coding summary whose guarantees outgrow the budget is trimmed, never left whole or dropped', () => {
    const heavy = structuredSummarySchema.parse({
      currentTask: `Port the renderer ${'and its tests '.repeat(40)}`,
      facts: [{ text: 'Never push to main', pinned: true }],
      toolOutcomes: Array.from({ length: 200 }, (_, index) => ({
        toolName: 'edit',
        toolCallId: `e${index}`,
        outcome: 'success' as const,
        keyFields: { path: `src/file-${index}.ts` },
      })),
      filesModified: Array.from({ length: 120 }, (_, index) => `src/file-${index}.ts`),
      currentPlan: Array.from({ length: 30 }, (_, index) => `step ${index}`),
    });
    expect(countText(renderSummary(heavy))).toBeGreaterThan(2500);
    const trimmed = trimSummaryToBudget(heavy, 600, countText);
    expect(countText(renderSummary(trimmed))).toBeLessThanOrEqual(600);
    expect(trimmed.facts).toContainEqual({ text: 'Never push to main', pinned: true });
    expect(trimmed.toolOutcomes.length).toBeGreaterThan(0);
    expect(trimmed.currentTask?.startsWith('Port the renderer')).toBe(true);
  });

  it('externalizes the oldest pinned facts, as few as make it fit, behind one pointer line', () => {
    const pinned = structuredSummarySchema.parse({
      facts: Array.from({ length: 30 }, (_, index) => ({
        text: `instruction ${index}: ${'keep this wording exactly '.repeat(3)}`,
        pinned: true,
        sourceMessageId: `m${index}`,
      })),
    });
    const trimmed = trimSummaryToBudget(pinned, 400, countText);
    const moved = trimmed.externalizedFacts ?? [];
    expect(moved.length).toBeGreaterThan(0);
    expect(moved[0]!.text.startsWith('instruction 0:')).toBe(true);
    expect(trimmed.facts.at(-1)!.text.startsWith('instruction 29:')).toBe(true);
    expect(moved.length + trimmed.facts.length).toBe(30);
    expect(countText(renderSummary(trimmed))).toBeLessThanOrEqual(400);
    const lessMoved = {
      ...pinned,
      facts: pinned.facts.slice(moved.length - 1),
      externalizedFacts: moved.slice(0, -1),
    };
    expect(countText(renderSummary(lessMoved))).toBeGreaterThan(400);
    expect(renderSummary(trimmed).match(/held outside this summary/g)).toHaveLength(1);
  });

  it('thins the commands that succeeded before a file the session modified or a failure (ADR-0400)', () => {
    const files = Array.from({ length: 8 }, (_, index) => `packages/app/src/module-${index}.ts`);
    const coding = structuredSummarySchema.parse({
      filesModified: files,
      toolOutcomes: [
        ...Array.from({ length: 24 }, (_, index) => ({
          toolName: 'bash',
          toolCallId: `ok-${index}`,
          outcome: 'success',
          keyFields: { command: `cd packages/app && npm run build:step-${index} 2>&1 | tail -3` },
        })),
        {
          toolName: 'bash',
          toolCallId: 'failed',
          outcome: 'failure',
          keyFields: { command: 'git commit -m "Release v0.8.0"' },
          errorMessage: 'pre-commit hook failed',
        },
      ],
    });
    const full = countText(renderSummary(coding));
    const budget = Math.floor(full / 2);
    const trimmed = trimSummaryToBudget(coding, budget, countText);
    expect(countText(renderSummary(trimmed))).toBeLessThanOrEqual(budget);
    // Every modified file and the failure stay; only successful commands went, thinned evenly.
    expect(trimmed.filesModified).toEqual(files);
    expect(trimmed.toolOutcomes.map((outcome) => outcome.toolCallId)).toContain('failed');
    const succeeded = trimmed.toolOutcomes.filter((outcome) => outcome.outcome === 'success');
    expect(succeeded.length).toBeGreaterThan(1);
    expect(succeeded.length).toBeLessThan(24);
    expect(succeeded[0]!.toolCallId).toBe('ok-0');
    expect(succeeded.at(-1)!.toolCallId).toBe('ok-23');
  });

  it('trims scored facts by score, not position', () => {
    const scored = structuredSummarySchema.parse({
      facts: Array.from({ length: 40 }, (_, index) => ({
        text: `turn ${index}: ${'words '.repeat(8)}`,
        score: index % 10 === 3 ? 9 : 1,
      })),
    });
    const trimmed = trimSummaryToBudget(scored, 120, countText);
    const kept = trimmed.facts.map((fact) => fact.text.split(':')[0]);
    expect(countText(renderSummary(trimmed))).toBeLessThanOrEqual(120);
    expect(kept.length).toBeLessThan(10);
    // The four informative turns, from every part of the span, survive; the newest plain ones do not.
    for (const turn of ['turn 3', 'turn 13', 'turn 23', 'turn 33']) expect(kept).toContain(turn);
    expect(kept).not.toContain('turn 39');
  });
});
