import { AdapterReport, type DraftMessage } from '../shared/draft.js';
import type { TranscriptSource } from '../shared/transcript-source.js';
import type { ConversationSummary } from '../types.js';
import type { AdapterResult, FormatAdapter } from './format-adapter.js';

const sessionHeader = /^# aider chat started at (.*)$/;
const modeLine = /^-\*-.*-\*-\s*$/;

interface AiderSession {
  /** The local time from the header (no time zone), undefined for text before the first header. */
  startedAtLocal: string | undefined;
  lines: string[];
}

type BlockKind = 'user' | 'harness' | 'assistant';

/**
 * aider `.aider.chat.history.md`. Sessions start at `# aider chat started at`; text before the
 * first header (minus the editor mode line) is a session too. `#### ` lines are the user's
 * messages, `> ` lines are aider's own terminal output (command echoes, edits applied,
 * commits, lint and test output), and the rest is the model's answer. aider's output becomes
 * a synthetic user message rather than an invented tool call, since the model never asked for
 * it. The model is read from the `> Model:` / `> Models:` / `> Main model:` line.
 */
export const aiderAdapter: FormatAdapter = {
  format: 'aider',
  defaultModel: 'gpt-4o',
  mismatch(source) {
    if (/^# aider chat started at /m.test(source.text)) return undefined;
    if (source.lowerFileName.endsWith('.aider.chat.history.md') && /^#### /m.test(source.text))
      return undefined;
    return 'no `# aider chat started at` header';
  },
  listConversations(source) {
    return sessionsOf(source).map(
      (session, index): ConversationSummary => ({
        index,
        id: `session-${index}`,
        title: session.startedAtLocal ?? '(before the first session header)',
      }),
    );
  },
  read(source, conversationIndex) {
    const sessions = sessionsOf(source);
    return readSession(sessions[conversationIndex]!, conversationIndex, sessions.length);
  },
};

function sessionsOf(source: TranscriptSource): AiderSession[] {
  return source.memo('aider-sessions', () => splitSessions(source.text));
}

function splitSessions(text: string): AiderSession[] {
  const sessions: AiderSession[] = [{ startedAtLocal: undefined, lines: [] }];
  for (const line of text.split(/\r?\n/)) {
    const header = sessionHeader.exec(line);
    if (header) sessions.push({ startedAtLocal: header[1]!.trim(), lines: [] });
    else sessions.at(-1)!.lines.push(line);
  }
  const preamble = sessions[0]!;
  const preambleHasContent = preamble.lines.some((line) => line.trim() !== '' && !modeLine.test(line));
  return preambleHasContent ? sessions : sessions.slice(1);
}

function kindOf(line: string): BlockKind {
  if (line.startsWith('#### ') || line === '####') return 'user';
  if (line.startsWith('> ') || line === '>') return 'harness';
  return 'assistant';
}

function stripLine(line: string, kind: BlockKind): string {
  // aider ends user and output lines with two spaces (a Markdown line break).
  if (kind === 'user') return line.replace(/^####\s?/, '').trimEnd();
  if (kind === 'harness') return line.replace(/^>\s?/, '').trimEnd();
  return line.trimEnd();
}

function readSession(session: AiderSession, index: number, count: number): AdapterResult {
  const report = new AdapterReport();
  const blocks: Array<{ kind: BlockKind; lines: string[]; closed: boolean }> = [];
  let pendingBlank: string[] = [];
  for (const line of session.lines) {
    if (modeLine.test(line)) continue;
    const current = blocks.at(-1);
    if (line.trim() === '') {
      // Blank lines inside a user message or an output are written with their prefix, so a
      // bare blank line ends them; inside the model's answer it separates paragraphs.
      if (current && current.kind !== 'assistant') current.closed = true;
      else pendingBlank.push('');
      continue;
    }
    const kind = kindOf(line);
    if (current && current.kind === kind && !current.closed)
      current.lines.push(...pendingBlank, stripLine(line, kind));
    else blocks.push({ kind, lines: [stripLine(line, kind)], closed: false });
    pendingBlank = [];
  }

  const drafts: DraftMessage[] = [];
  let model: string | undefined;
  blocks.forEach((block, blockIndex) => {
    report.sourceRecords += 1;
    const text = block.lines.join('\n').replace(/^\n+|\s+$/g, '');
    if (text === '') {
      report.skip('empty-block');
      return;
    }
    const id = `aider-${index}-${blockIndex}`;
    if (block.kind === 'user') {
      report.sourceUserRecords += 1;
      drafts.push({ id, role: 'user', content: [{ type: 'text', text }] });
    } else if (block.kind === 'harness') {
      model ??= modelFromOutput(block.lines);
      drafts.push({
        id,
        role: 'user',
        synthetic: true,
        metadata: { aider: 'output' },
        content: [{ type: 'text', text }],
      });
    } else {
      drafts.push({ id, role: 'assistant', content: [{ type: 'text', text }] });
    }
  });
  return {
    drafts,
    report,
    model,
    conversationCount: count,
    conversationId: `session-${index}`,
    startedAt: undefined,
    threadMetadata: session.startedAtLocal === undefined ? {} : { startedAtLocal: session.startedAtLocal },
  };
}

/** `Model: gpt-4o with diff edit format`, `Models: claude-3-5-sonnet-20240620 with ...`. */
function modelFromOutput(lines: readonly string[]): string | undefined {
  for (const line of lines) {
    const match = /^(?:Main model|Models?):\s*(\S+)/.exec(line);
    // Names may carry decorations such as `⚡`.
    const name = match?.[1]?.replace(/[^\w./:@-]+$/u, '');
    if (name) return name;
  }
  return undefined;
}
