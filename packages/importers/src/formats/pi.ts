import { AdapterReport, type DraftMessage } from '../shared/draft.js';
import type { JsonLineRecord } from '../shared/json-lines.js';
import { toIsoTimestamp } from '../shared/timestamps.js';
import type { TranscriptSource } from '../shared/transcript-source.js';
import { asString, isObject } from '../shared/values.js';
import type { AdapterResult, FormatAdapter } from './format-adapter.js';
import { type PiEntry, resolveCompaction } from './pi-compactions.js';
import { convertMessage, userContent } from './pi-messages.js';

/**
 * pi-coding-agent session JSONL: a `session` header, then `message` records (roles user,
 * assistant, toolResult, bashExecution, custom), `compaction`, `model_change`,
 * `thinking_level_change` and, in tree-shaped sessions, `branch_summary` and `custom_message`.
 */
export const piAdapter: FormatAdapter = {
  format: 'pi',
  defaultModel: 'claude-sonnet-4-5',
  mismatch(source) {
    if (!source.looksLikeJsonLines()) return 'not JSON Lines';
    const records = source.jsonLines().records.slice(0, 50);
    const looksLikePi = records.some(
      ({ value }) =>
        isObject(value) &&
        (value.type === 'session' ||
          (value.type === 'message' && isObject(value.message) && 'role' in value.message)),
    );
    return looksLikePi ? undefined : 'no pi `session` header or `message` records';
  },
  listConversations(source) {
    const header = source
      .jsonLines()
      .records.find(({ value }) => isObject(value) && value.type === 'session');
    const id = header && isObject(header.value) ? asString(header.value.id) : undefined;
    return [{ index: 0, id, title: undefined }];
  },
  read(source) {
    return readPiSession(source);
  },
};

function readPiSession(source: TranscriptSource): AdapterResult {
  const report = new AdapterReport();
  const lines = source.jsonLines();
  report.unparseableLines = lines.unparseableLines.length;
  for (const line of lines.gluedLines)
    report.warn(`split line ${line}: it holds several records glued together`);
  for (const line of lines.unparseableLines) report.warn(`skipped line ${line}: not JSON`);
  const all: PiEntry[] = [];
  lines.records.forEach((record: JsonLineRecord, index) => {
    if (isObject(record.value)) all.push({ value: record.value, index, line: record.line });
  });
  report.sourceRecords = lines.records.length;
  const header = all.find((entry) => entry.value.type === 'session')?.value;
  const entries = activeBranch(all, report);

  const drafts: DraftMessage[] = [];
  const recordIndexByDraftId = new Map<string, number>();
  const compactions: Array<{ entry: PiEntry }> = [];
  let firstAssistantModel: string | undefined;
  for (const entry of entries) {
    const { value } = entry;
    const type = asString(value.type) ?? 'unknown';
    const createdAt = toIsoTimestamp(value.timestamp);
    const id = `pi-${typeof value.id === 'string' ? value.id : entry.index}`;
    const push = (draft: DraftMessage) => {
      drafts.push(draft);
      recordIndexByDraftId.set(draft.id, entry.index);
    };
    if (type === 'message' && isObject(value.message)) {
      const draft = convertMessage(value.message, id, createdAt, report);
      if (draft) {
        draft.metadata = { ...draft.metadata, sourceLine: entry.line };
        push(draft);
        if (draft.role === 'assistant' && firstAssistantModel === undefined) {
          firstAssistantModel = asString(value.message.model);
        }
      }
    } else if (type === 'compaction') {
      compactions.push({ entry });
    } else if (type === 'branch_summary') {
      const summary = asString(value.summary) ?? '';
      push({
        id,
        role: 'user',
        synthetic: true,
        ...(createdAt === undefined ? {} : { createdAt }),
        metadata: { piEntryType: 'branch_summary', sourceLine: entry.line },
        content: [
          {
            type: 'text',
            text: `The following is a summary of a branch that this conversation came back from:\n\n<summary>\n${summary}\n</summary>`,
          },
        ],
      });
    } else if (type === 'custom_message') {
      push({
        id,
        role: 'user',
        synthetic: true,
        ...(createdAt === undefined ? {} : { createdAt }),
        metadata: {
          piEntryType: 'custom_message',
          ...(typeof value.customType === 'string' ? { customType: value.customType } : {}),
          sourceLine: entry.line,
        },
        content: userContent(value.content),
      });
    } else if (type !== 'session') {
      report.skip(type);
    }
  }

  const model = (header && asString(header.modelId)) ?? firstAssistantModel;
  return {
    drafts,
    report,
    model,
    conversationCount: 1,
    conversationId: header ? asString(header.id) : undefined,
    startedAt: header ? toIsoTimestamp(header.timestamp) : undefined,
    threadMetadata: {
      ...(header && typeof header.provider === 'string' ? { provider: header.provider } : {}),
      ...(header && typeof header.cwd === 'string' ? { cwd: header.cwd } : {}),
    },
    resolveProbes: (messages) => ({
      piCompactions: compactions.map(({ entry }) =>
        resolveCompaction(entry, messages, recordIndexByDraftId, all),
      ),
    }),
  };
}

/**
 * Tree-shaped sessions (entries with `id`/`parentId`) keep abandoned branches in the file; the
 * conversation is the path from the last entry back to the root. Flat sessions are read as is.
 */
function activeBranch(all: PiEntry[], report: AdapterReport): PiEntry[] {
  const body = all.filter((entry) => entry.value.type !== 'session');
  const isTree = body.length > 0 && body.every((entry) => typeof entry.value.id === 'string');
  if (!isTree) return all;
  const byId = new Map(body.map((entry) => [entry.value.id as string, entry]));
  const onPath = new Set<string>();
  let cursor: PiEntry | undefined = body.at(-1);
  while (cursor && !onPath.has(cursor.value.id as string)) {
    onPath.add(cursor.value.id as string);
    const parentId = asString(cursor.value.parentId);
    cursor = parentId === undefined ? undefined : byId.get(parentId);
  }
  const offPath = body.length - onPath.size;
  if (offPath > 0) report.warn(`skipped ${offPath} entries on branches the session left`);
  for (let index = 0; index < offPath; index += 1) report.skip('off-branch');
  return all.filter((entry) => entry.value.type === 'session' || onPath.has(entry.value.id as string));
}
