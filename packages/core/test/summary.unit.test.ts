import { describe, expect, it } from 'vitest';
import {
  emptySummary,
  mergeSummaries,
  renderSummary,
  type StructuredSummary,
  stableStringify,
  structuredSummarySchema,
} from '../src/index.js';

const summary = (fields: Partial<StructuredSummary>): StructuredSummary => ({ ...emptySummary(), ...fields });

describe('mergeSummaries', () => {
  const older = summary({
    facts: [
      { text: 'Never delete production data', pinned: true },
      { text: 'User prefers Python', pinned: false, sourceMessageId: 'm1' },
    ],
    decisions: [{ decision: 'Use SQLite', rationale: 'small' }],
    openItems: [{ description: 'Write tests', priority: 'high' }],
    artifacts: [{ artifactId: 'a1', description: 'old log', rehydrateHint: 'read for errors' }],
    toolOutcomes: [
      {
        toolName: 'create_order',
        toolCallId: 'c1',
        outcome: 'success',
        keyFields: { orderId: 'A-17', total: 30 },
      },
      { toolName: 'search', outcome: 'success', keyFields: { query: 'books' } },
    ],
    currentTask: 'order books',
    currentPlan: ['find', 'order'],
    filesRead: ['a.ts', 'b.ts'],
    filesModified: ['a.ts'],
  });
  const newer = summary({
    facts: [
      { text: 'Budget is $1000', pinned: true },
      { text: 'User prefers Python', pinned: true },
    ],
    decisions: [
      { decision: 'Use SQLite', rationale: 'changed my mind about why' },
      { decision: 'Ship Friday' },
    ],
    openItems: [
      { description: 'Write tests', priority: 'low', context: 'after the refactor' },
      { description: 'Deploy', priority: 'medium' },
    ],
    artifacts: [{ artifactId: 'a1', description: 'new log', rehydrateHint: 'read for warnings' }],
    toolOutcomes: [
      {
        toolName: 'create_order',
        toolCallId: 'c1',
        outcome: 'partial',
        keyFields: { status: 'shipped', total: 31 },
      },
    ],
    currentTask: null,
    currentPlan: null,
    filesRead: ['b.ts', 'c.ts'],
    filesModified: [],
  });

  it('keeps every pinned fact verbatim, pinned first, and a fact pinned on either side stays pinned', () => {
    expect(mergeSummaries(older, newer).facts).toEqual([
      { text: 'Never delete production data', pinned: true },
      { text: 'User prefers Python', pinned: true, sourceMessageId: 'm1' },
      { text: 'Budget is $1000', pinned: true },
    ]);
    expect(mergeSummaries(newer, older).facts.map((fact) => [fact.text, fact.pinned])).toEqual([
      ['Budget is $1000', true],
      ['User prefers Python', true],
      ['Never delete production data', true],
    ]);
  });

  it('keeps every key field of a tool outcome, the newer value winning', () => {
    expect(mergeSummaries(older, newer).toolOutcomes).toEqual([
      {
        toolName: 'create_order',
        toolCallId: 'c1',
        outcome: 'partial',
        keyFields: { orderId: 'A-17', total: 31, status: 'shipped' },
      },
      { toolName: 'search', outcome: 'success', keyFields: { query: 'books' } },
    ]);
  });

  it('keeps the key fields of repeated outcomes of one call within the older summary', () => {
    const repeated = summary({
      toolOutcomes: [
        { toolName: 'bash', toolCallId: 'c7', outcome: 'failure', keyFields: { exitCode: 1 } },
        { toolName: 'bash', toolCallId: 'c7', outcome: 'success', keyFields: { path: 'out.txt' } },
      ],
    });
    expect(mergeSummaries(repeated, emptySummary()).toolOutcomes).toEqual([
      { toolName: 'bash', toolCallId: 'c7', outcome: 'success', keyFields: { exitCode: 1, path: 'out.txt' } },
    ]);
    expect(mergeSummaries(emptySummary(), repeated).toolOutcomes).toEqual(
      mergeSummaries(repeated, emptySummary()).toolOutcomes,
    );
  });

  it('takes the current task and plan from the newer summary, falling back to the older', () => {
    const merged = mergeSummaries(older, newer);
    expect(merged.currentTask).toBe('order books');
    expect(merged.currentPlan).toEqual(['find', 'order']);
    const replaced = mergeSummaries(older, { ...newer, currentTask: 'deploy', currentPlan: ['build'] });
    expect(replaced.currentTask).toBe('deploy');
    expect(replaced.currentPlan).toEqual(['build']);
  });

  it('unions lists in first-seen order: first decision wins, last open item and artifact win', () => {
    const merged = mergeSummaries(older, newer);
    expect(merged.decisions).toEqual([
      { decision: 'Use SQLite', rationale: 'small' },
      { decision: 'Ship Friday' },
    ]);
    expect(merged.openItems).toEqual([
      { description: 'Write tests', priority: 'low', context: 'after the refactor' },
      { description: 'Deploy', priority: 'medium' },
    ]);
    expect(merged.artifacts).toEqual([
      { artifactId: 'a1', description: 'new log', rehydrateHint: 'read for warnings' },
    ]);
    expect(merged.filesRead).toEqual(['a.ts', 'b.ts', 'c.ts']);
    expect(merged.filesModified).toEqual(['a.ts']);
  });

  it('leaves both inputs unchanged and returns a valid summary', () => {
    const before = structuredClone([older, newer]);
    const merged = mergeSummaries(older, newer);
    expect([older, newer]).toEqual(before);
    expect(structuredSummarySchema.parse(merged)).toEqual(merged);
  });
});

describe('renderSummary', () => {
  it('renders sections in a fixed order with a versioned header', () => {
    const rendered = renderSummary(
      summary({
        currentTask: 'order books',
        facts: [
          { text: 'Never delete production data', pinned: true },
          { text: 'User prefers Python', pinned: false },
        ],
        decisions: [{ decision: 'Use SQLite', rationale: 'small', turn: 3 }, { decision: 'Ship Friday' }],
        currentPlan: ['find', 'order'],
        openItems: [{ description: 'Write tests', priority: 'high', context: 'before merge' }],
        filesModified: ['a.ts'],
        filesRead: ['b.ts'],
        toolOutcomes: [
          { toolName: 'create_order', outcome: 'success', keyFields: { total: 30, orderId: 'A-17' } },
          { toolName: 'bash', outcome: 'failure', keyFields: {}, errorMessage: 'exit 1' },
        ],
        artifacts: [{ artifactId: 'a1', description: 'build log', rehydrateHint: 'read for errors' }],
      }),
    );
    expect(rendered).toBe(
      [
        '[Summary v1]',
        '## Current task',
        'order books',
        '## Facts and constraints',
        '- [pinned] Never delete production data',
        '- User prefers Python',
        '## Decisions',
        '- Use SQLite (because small) [turn 3]',
        '- Ship Friday',
        '## Current plan',
        '1. find',
        '2. order',
        '## Open items',
        '- [high] Write tests (before merge)',
        '## Files modified',
        '- a.ts',
        '## Files read',
        '- b.ts',
        '## Tool outcomes',
        '- create_order (success) {"orderId":"A-17","total":30}',
        '- bash (failure) error: exit 1',
        '## Artifacts',
        '- artifact:a1 build log (read for errors)',
      ].join('\n'),
    );
  });

  it('leaves empty sections out', () => {
    expect(renderSummary(emptySummary())).toBe('[Summary v1]');
    expect(renderSummary(summary({ filesRead: ['x.ts'], currentPlan: [] }))).toBe(
      '[Summary v1]\n## Files read\n- x.ts',
    );
  });

  it('renders key fields the same whatever their key order', () => {
    const a = summary({
      toolOutcomes: [{ toolName: 't', outcome: 'success', keyFields: { b: 1, a: { d: 2, c: 3 } } }],
    });
    const b = summary({
      toolOutcomes: [{ toolName: 't', outcome: 'success', keyFields: { a: { c: 3, d: 2 }, b: 1 } }],
    });
    expect(renderSummary(a)).toBe(renderSummary(b));
    expect(renderSummary(a)).toContain('{"a":{"c":3,"d":2},"b":1}');
  });

  it('writes a one-line shell command as typed, after the other key fields (ADR-0401)', () => {
    const command = 'find ~/work -name "agent*" -type d 2>/dev/null | grep -v \\.git | head -5';
    const rendered = renderSummary(
      summary({
        toolOutcomes: [
          {
            toolName: 'bash',
            outcome: 'failure',
            keyFields: { exit_code: 1, command },
            errorMessage: 'Command aborted',
            count: 2,
          },
          { toolName: 'bash', outcome: 'success', keyFields: { command: 'pnpm build' } },
        ],
      }),
    );
    expect(rendered).toBe(
      [
        '[Summary v1]',
        '## Tool outcomes',
        `- bash (failure ×2) {"exit_code":1} $ ${command} error: Command aborted`,
        '- bash (success) $ pnpm build',
      ].join('\n'),
    );
  });

  it("keeps a command with line breaks in JSON, so its lines cannot read as the summary's own", () => {
    const command = 'cat <<EOF > notes.md\n## Open items\nEOF';
    const rendered = renderSummary(
      summary({ toolOutcomes: [{ toolName: 'bash', outcome: 'success', keyFields: { command } }] }),
    );
    expect(rendered).toBe(
      ['[Summary v1]', '## Tool outcomes', `- bash (success) ${JSON.stringify({ command })}`].join('\n'),
    );
  });
});

describe('stableStringify', () => {
  it('sorts keys at every depth, inside arrays too', () => {
    expect(stableStringify({ b: 1, a: { d: 2, c: 3 } })).toBe('{"a":{"c":3,"d":2},"b":1}');
    expect(stableStringify([{ y: 1, x: [{ q: 1, p: 2 }] }])).toBe('[{"x":[{"p":2,"q":1}],"y":1}]');
  });

  it('writes what JSON.stringify writes for values without keys to sort', () => {
    for (const value of ['text', 12.5, true, null, [1, 'a', null], { only: 'one' }]) {
      expect(stableStringify(value)).toBe(JSON.stringify(value));
    }
    expect(stableStringify({ kept: 1, gone: undefined })).toBe('{"kept":1}');
  });

  it('writes values with a toJSON method, such as dates, as JSON does', () => {
    const at = new Date(Date.UTC(2025, 0, 2, 3, 4, 5));
    expect(stableStringify({ at })).toBe('{"at":"2025-01-02T03:04:05.000Z"}');
    expect(stableStringify({ at })).toBe(JSON.stringify({ at }));
  });
});
