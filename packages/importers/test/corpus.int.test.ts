import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ValidationError } from '@compactor/core';
import { describe, expect, it } from 'vitest';
import {
  detectFormat,
  type ImportedTranscript,
  importTranscriptFile,
  openTranscript,
  type TranscriptFormat,
} from '../src/index.js';
import { corpusAvailable, corpusDirectory, corpusFiles } from './support/corpus.js';
import { expectValidThread, messagesOf } from './support/thread-invariants.js';

/** The format each corpus folder holds; `longchat` test cases are not a transcript format we import. */
const formatByFolder: Record<string, TranscriptFormat | undefined> = {
  pi: 'pi',
  'claude-code': 'claude-code',
  'swe-agent': 'swe-agent',
  'tau-bench': 'tau-bench',
  aider: 'aider',
  locomo: 'locomo',
  longchat: undefined,
};

const read = (path: string) => readFileSync(join(corpusDirectory, path), 'utf8');

/** Repairs must be reported one warning each. */
function expectRepairsReported(imported: ImportedTranscript): void {
  const count = (pattern: RegExp) => imported.warnings.filter((warning) => pattern.test(warning)).length;
  expect(count(/has no result: added interrupted failure result/)).toBe(imported.stats.danglingCallsRepaired);
  expect(count(/no earlier call has that id/)).toBe(imported.stats.orphanResultsDropped);
  expect(count(/already has a result/)).toBe(imported.stats.duplicateResultsDropped);
  expect(count(/^renamed tool call/)).toBe(imported.stats.duplicateCallIdsRenamed);
  expect(count(/^dropped empty/)).toBe(imported.stats.emptyMessagesDropped);
}

function expectSound(imported: ImportedTranscript): void {
  expectValidThread(imported);
  expectRepairsReported(imported);
}

describe.skipIf(!corpusAvailable)('corpus import (needs ../shared/corpus)', () => {
  it('detects the format of every corpus file, and rejects the one that is no transcript', () => {
    const files = corpusFiles();
    expect(files.length).toBeGreaterThanOrEqual(20);
    for (const path of files) {
      const expected = formatByFolder[path.split('/')[0]!];
      if (expected === undefined) {
        expect(() => detectFormat(read(path), path), path).toThrow(ValidationError);
      } else {
        expect(detectFormat(read(path), path), path).toBe(expected);
      }
    }
  });

  it('imports the pi sessions with the README user turns and tool calls', async () => {
    // README figures: user turns and tool calls per session.
    const readme: Record<string, { userTurns: number; toolCalls: number }> = {
      'pi/before-compaction.jsonl': { userTurns: 55, toolCalls: 454 },
      'pi/large-session.jsonl': { userTurns: 88, toolCalls: 391 },
      'pi/compact.jsonl': { userTurns: 77, toolCalls: 432 },
      'pi/session.jsonl': { userTurns: 43, toolCalls: 189 },
    };
    for (const [path, figures] of Object.entries(readme)) {
      const imported = await importTranscriptFile(join(corpusDirectory, path));
      expectSound(imported);
      const turnsOnGluedLines = messagesOf(imported).filter(
        (message) =>
          message.role === 'user' &&
          !message.synthetic &&
          (path === 'pi/session.jsonl' ? message.metadata?.sourceLine === 440 : false),
      ).length;
      // session.jsonl's line 440 glues an assistant reply to the user's "ok": the README counted
      // only lines that parse, so its 43 is our 44 minus the turn recovered from that line.
      expect(imported.stats.userTurns - turnsOnGluedLines, path).toBe(figures.userTurns);
      expect(imported.stats.sourceToolCalls, path).toBe(figures.toolCalls);
      expect(imported.stats.toolCalls, path).toBe(figures.toolCalls);
      expect(imported.model, path).toMatch(/^claude-/);
      for (const message of messagesOf(imported)) {
        if (message.role === 'assistant' && !message.synthetic)
          expect(message.metadata?.usage, message.id).toBeDefined();
      }
    }
  });

  it('exposes the pi compaction records as probes pointing at real messages', async () => {
    const imported = await importTranscriptFile(join(corpusDirectory, 'pi/compact.jsonl'));
    const raw = read('pi/compact.jsonl');
    expect(imported.piCompactions).toHaveLength(raw.split('"type":"compaction"').length - 1);
    const ids = new Set(messagesOf(imported).map((message) => message.id));
    for (const compaction of imported.piCompactions!) {
      expect(ids.has(compaction.atMessageId!)).toBe(true);
      if (compaction.firstKeptMessageId !== undefined)
        expect(ids.has(compaction.firstKeptMessageId)).toBe(true);
      expect(compaction.summary.length).toBeGreaterThan(100);
    }
  });

  it('imports the Claude Code sessions, subagents included, with the README figures', async () => {
    const general = await importTranscriptFile(join(corpusDirectory, 'claude-code/general-tool-calls.jsonl'));
    expectSound(general);
    // README: "29 user turns, 110 tool_use/tool_result pairs", counted over the records as written.
    expect(general.stats.sourceUserRecords).toBe(29);
    expect(general.stats.sourceToolCalls).toBe(110);
    // The file holds the first part of the conversation twice (Claude Code rewrote it on resume);
    // once replays are skipped, every distinct tool_use id is one call with one result.
    const distinctToolUseIds = new Set(
      read('claude-code/general-tool-calls.jsonl').match(/"id":"toolu_[A-Za-z0-9]+"/g),
    );
    expect(general.stats.toolCalls).toBe(distinctToolUseIds.size);
    expect(general.stats.replayedRecords).toBeGreaterThan(0);
    // Counted by hand: six prompts before the resume and four slash commands after it.
    expect(general.stats.userTurns).toBe(10);

    const withSubagents = await importTranscriptFile(
      join(corpusDirectory, 'claude-code/0ccf1a04-1b4c-43b6-8aa5-79e41db43a68.jsonl'),
    );
    expectSound(withSubagents);
    const subagentIds = new Set(messagesOf(withSubagents).flatMap((message) => message.subagentId ?? []));
    expect(subagentIds.size).toBe(5);
    expect(withSubagents.warnings.filter((warning) => warning.startsWith('subagent'))).toEqual([]);
  });

  it('imports every other corpus file, every conversation of the multi-conversation ones', async () => {
    for (const path of corpusFiles()) {
      const folder = path.split('/')[0]!;
      if (folder === 'pi' || folder === 'longchat' || path === 'claude-code/general-tool-calls.jsonl')
        continue;
      if (folder === 'claude-code') {
        expectSound(await importTranscriptFile(join(corpusDirectory, path)));
        continue;
      }
      const text = read(path);
      const opened = openTranscript({ text, fileName: path });
      expect(opened.format, path).toBe(formatByFolder[folder]);
      const json = opened.format === 'aider' ? undefined : JSON.parse(text);
      for (const conversation of opened.conversations) {
        const imported = opened.import({ conversation: conversation.index });
        expectSound(imported);
        const kept = messagesOf(imported).filter((message) => message.metadata?.repair === undefined);
        if (opened.format === 'tau-bench') {
          expect(kept).toHaveLength(json[conversation.index].traj.length);
          expect(imported.model).toBe('gpt-4o');
        } else if (opened.format === 'swe-agent') {
          expect(kept).toHaveLength(json.history.length);
        } else if (opened.format === 'locomo') {
          expect(imported.probes).toHaveLength(json[conversation.index].qa.length);
          const ids = new Set(kept.map((message) => message.id));
          for (const probe of imported.probes!)
            for (const id of probe.evidenceMessageIds) expect(ids.has(id)).toBe(true);
        }
      }
      if (opened.format === 'aider') expect(opened.conversations).toHaveLength(1134);
    }
  });

  it('gives the same events for the same file', async () => {
    const path = join(corpusDirectory, 'pi/session.jsonl');
    expect(await importTranscriptFile(path)).toEqual(await importTranscriptFile(path));
  });
});
