import { POLICY_PRESET_NAMES } from '@compactor/core';
import { corpusAvailable, corpusFile } from '@compactor/testkit/corpus';
import { describe, expect, it } from 'vitest';
import { checkRequest } from '../src/eval/request-checks.js';
import { selectTranscripts } from '../src/eval/transcript-set.js';
import { replayTranscript } from '../src/replay/replay-transcript.js';

/**
 * Every policy preset (ADR-0106) replays every transcript of the evaluation's corpus selection, and the
 * final request is valid for its provider and within the ceiling the preset's policy renders under
 * (ADR-0181). At a 32,000-token window, where the presets' absolute thresholds (80,000 and 93,600
 * tokens, 20 turns) were set for larger windows, so the renderer's budget enforcement is what is tested
 * when they do not fire. Every transcript of the selection takes 3–16 minutes per run (more than the
 * suite's budget), so by default each preset replays the first transcript of each kind (pi, Claude Code,
 * SWE-agent, tau-bench, aider, LoCoMo); `COMPACTOR_FULL_CORPUS=1` replays them all.
 */
const WINDOW = 32_000;
const FULL_CORPUS = process.env.COMPACTOR_FULL_CORPUS === '1';

function firstOfEachKind<T extends { kind: string }>(transcripts: readonly T[]): T[] {
  const seen = new Set<string>();
  return transcripts.filter((transcript) => !seen.has(transcript.kind) && seen.add(transcript.kind));
}

describe.skipIf(!corpusAvailable())('every preset over the corpus (needs ../shared/corpus)', () => {
  it.each(POLICY_PRESET_NAMES)(
    '%s: every transcript valid and within its ceiling',
    { timeout: 1_200_000 },
    async (preset) => {
      const selection = await selectTranscripts(corpusFile());
      expect(selection.transcripts.length).toBeGreaterThan(10);
      const transcripts = FULL_CORPUS ? selection.transcripts : firstOfEachKind(selection.transcripts);
      expect(transcripts.length).toBeGreaterThanOrEqual(FULL_CORPUS ? 10 : 5);
      const failures: string[] = [];
      for (const transcript of transcripts) {
        const replay = await replayTranscript({
          file: transcript.file,
          conversation: transcript.conversation,
          window: WINDOW,
          policy: { preset },
        });
        expect(replay.thread.policy.preset).toBe(preset);
        const ceiling = replay.report.ceiling;
        const checks = checkRequest(replay.request, replay.report.provider, replay.tokenizer, ceiling);
        if (ceiling <= 0 || !checks.valid || !checks.withinBudget || replay.report.renderError) {
          failures.push(
            `${transcript.label}: valid ${checks.valid} (${checks.validationErrors.join('; ')}), ${checks.requestTokens} of ${ceiling} tokens${replay.report.renderError ? `, ${replay.report.renderError}` : ''}`,
          );
        }
      }
      expect(failures).toEqual([]);
    },
  );
});
