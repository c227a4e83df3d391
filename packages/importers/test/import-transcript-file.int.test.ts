import { NotFoundError } from '@compactor/core';
import { describe, expect, it } from 'vitest';
import { importTranscript, importTranscriptFile } from '../src/index.js';
import { fixturePath, readFixture } from './support/fixtures.js';
import { expectValidThread } from './support/thread-invariants.js';

describe('importTranscriptFile', () => {
  it('reads a Claude Code session with the subagent transcripts kept beside it', async () => {
    const imported = await importTranscriptFile(fixturePath('claude-code/cc-session.jsonl'));
    expectValidThread(imported);
    expect(imported.stats.subagentMessages).toBe(5);
    expect(imported.events[0]).toMatchObject({ metadata: { subagents: ['abc1234'] } });
    const fromText = importTranscript({
      text: readFixture('claude-code/cc-session.jsonl'),
      fileName: fixturePath('claude-code/cc-session.jsonl'),
      subagents: [
        { agentId: 'abc1234', text: readFixture('claude-code/cc-session/subagents/agent-abc1234.jsonl') },
      ],
    });
    expect(imported).toEqual(fromText);
  });

  it('reads other formats without looking for siblings', async () => {
    const imported = await importTranscriptFile(fixturePath('tau-bench/tasks.json'), { conversation: 1 });
    expect(imported).toMatchObject({ format: 'tau-bench', conversationIndex: 1 });
  });

  it('throws NotFoundError for a missing file', async () => {
    await expect(importTranscriptFile(fixturePath('nope/missing.jsonl'))).rejects.toBeInstanceOf(
      NotFoundError,
    );
  });
});
