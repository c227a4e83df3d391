import { AdapterReport, type DraftMessage } from '../shared/draft.js';
import { parseJsonLines } from '../shared/json-lines.js';
import type { TranscriptSource } from '../shared/transcript-source.js';
import { asString, isObject } from '../shared/values.js';
import type { SubagentTranscript } from '../types.js';
import { convertClaudeCodeRecords } from './claude-code-records.js';
import type { AdapterResult, FormatAdapter } from './format-adapter.js';

const bookkeepingTypes = new Set(['summary', 'file-history-snapshot', 'queue-operation', 'progress']);

/** Claude Code project JSONL (`~/.claude/projects/<project>/<session>.jsonl`) and its subagents. */
export const claudeCodeAdapter: FormatAdapter = {
  format: 'claude-code',
  defaultModel: 'claude-sonnet-4-5',
  mismatch(source) {
    if (!source.looksLikeJsonLines()) return 'not JSON Lines';
    const records = source.jsonLines().records.slice(0, 50);
    const looksLikeClaudeCode = records.some(
      ({ value }) =>
        isObject(value) &&
        (bookkeepingTypes.has(value.type as string) ||
          ((value.type === 'user' || value.type === 'assistant') &&
            isObject(value.message) &&
            (typeof value.uuid === 'string' || typeof value.sessionId === 'string'))),
    );
    return looksLikeClaudeCode
      ? undefined
      : 'no Claude Code records (user/assistant with uuid, summary, ...)';
  },
  listConversations(source) {
    const withSession = source
      .jsonLines()
      .records.find(({ value }) => isObject(value) && 'sessionId' in value);
    const id = withSession && isObject(withSession.value) ? asString(withSession.value.sessionId) : undefined;
    return [{ index: 0, id, title: undefined }];
  },
  read(source, _conversationIndex, subagents) {
    return readClaudeCodeSession(source, subagents);
  },
};

function readClaudeCodeSession(
  source: TranscriptSource,
  subagents: readonly SubagentTranscript[],
): AdapterResult {
  const report = new AdapterReport();
  const lines = source.jsonLines();
  noteLineRepairs(report, lines.gluedLines, lines.unparseableLines, 'the session');
  const main = convertClaudeCodeRecords(lines.records, report, { subagentId: undefined });
  const drafts = [...main.drafts];

  // Chronological by launch, so subagents launched by one turn keep the order of their calls.
  const launchIndex = (agentId: string) => {
    const resultId = main.launchedBy.get(agentId);
    const index = resultId === undefined ? -1 : main.drafts.findIndex((draft) => draft.id === resultId);
    return index === -1 ? Number.MAX_SAFE_INTEGER : index;
  };
  const ordered = [...subagents].sort(
    (a, b) => launchIndex(a.agentId) - launchIndex(b.agentId) || a.agentId.localeCompare(b.agentId),
  );
  for (const subagent of ordered) {
    const subagentLines = parseJsonLines(subagent.text);
    noteLineRepairs(
      report,
      subagentLines.gluedLines,
      subagentLines.unparseableLines,
      `subagent ${subagent.agentId}`,
    );
    const converted = convertClaudeCodeRecords(subagentLines.records, report, {
      subagentId: subagent.agentId,
    });
    insertSubagent(drafts, converted.drafts, main.launchedBy.get(subagent.agentId), subagent.agentId, report);
  }
  if (report.replayedRecords > 0) {
    report.warn(
      `skipped ${report.replayedRecords} records that repeat earlier ones (same message and blocks, or same user content and time): Claude Code writes history again on resume`,
    );
  }
  return {
    drafts,
    report,
    model: main.model,
    conversationCount: 1,
    conversationId: main.sessionId,
    startedAt: main.startedAt,
    threadMetadata: subagents.length > 0 ? { subagents: ordered.map((subagent) => subagent.agentId) } : {},
  };
}

function noteLineRepairs(report: AdapterReport, glued: number[], unparseable: number[], where: string): void {
  report.unparseableLines += unparseable.length;
  for (const line of glued)
    report.warn(`split line ${line} of ${where}: it holds several records glued together`);
  for (const line of unparseable) report.warn(`skipped line ${line} of ${where}: not JSON`);
}

/**
 * A subagent's messages go right after the results of the assistant turn whose Task call
 * launched it, so the root conversation's call/result runs stay together. A subagent nothing
 * points to goes at the end.
 */
function insertSubagent(
  drafts: DraftMessage[],
  subagentDrafts: DraftMessage[],
  launchingResultId: string | undefined,
  agentId: string,
  report: AdapterReport,
): void {
  if (subagentDrafts.length === 0) return;
  let position =
    launchingResultId === undefined ? -1 : drafts.findIndex((draft) => draft.id === launchingResultId);
  if (position === -1) {
    report.warn(
      `subagent ${agentId}: no Task result in the session names it, its messages are appended at the end`,
    );
    drafts.push(...subagentDrafts);
    return;
  }
  position += 1;
  while (
    position < drafts.length &&
    (drafts[position]!.role === 'tool' || drafts[position]!.subagentId !== undefined)
  ) {
    position += 1;
  }
  drafts.splice(position, 0, ...subagentDrafts);
}
