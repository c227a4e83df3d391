/**
 * Benchmark text: a mix of real agent transcripts when the corpus is present (pi sessions'
 * message text, tool calls and tool output; aider's markdown chat history; LoCoMo dialogue
 * turns), otherwise a small built-in sample.
 */
import { existsSync, readFileSync } from 'node:fs';
import { corpusPath, piSessionFiles } from '../scripts/corpus-location.js';
import { readPiSession } from '../scripts/pi-session.js';

export interface BenchText {
  source: string;
  /** Individual messages / paragraphs / turns, in corpus order. */
  pieces: string[];
}

function piPieces(): string[] {
  const pieces: string[] = [];
  for (const file of piSessionFiles) {
    for (const record of readPiSession(corpusPath('pi', file))) {
      const content = record.message?.content;
      if (!Array.isArray(content)) continue;
      for (const block of content) {
        if (block.type === 'text' && block.text) pieces.push(block.text);
        else if (block.type === 'thinking' && block.thinking) pieces.push(block.thinking);
        else if (block.type === 'toolCall') pieces.push(JSON.stringify(block.arguments ?? {}));
      }
    }
  }
  return pieces;
}

function aiderPieces(): string[] {
  return readFileSync(corpusPath('aider', 'chat-history.md'), 'utf8')
    .split(/\n\s*\n/)
    .filter((piece) => piece.trim().length > 0);
}

interface LocomoConversation {
  conversation: Record<string, unknown>;
}

function locomoPieces(): string[] {
  const conversations = JSON.parse(
    readFileSync(corpusPath('locomo', 'locomo10.json'), 'utf8'),
  ) as LocomoConversation[];
  const pieces: string[] = [];
  for (const { conversation } of conversations) {
    for (const [key, value] of Object.entries(conversation)) {
      if (!/^session_\d+$/.test(key) || !Array.isArray(value)) continue;
      for (const turn of value as { speaker?: string; text?: string }[]) {
        if (turn.text) pieces.push(`${turn.speaker ?? ''}: ${turn.text}`);
      }
    }
  }
  return pieces;
}

/** Prose, code, JSON, unicode, emoji, whitespace runs and special-token-looking text. */
function builtInPieces(): string[] {
  const base = [
    'The quick brown fox jumps over the lazy dog while the build runs its tests again.',
    'export function add(a: number, b: number): number {\n  return a + b;\n}\n',
    '{"path":"/src/index.ts","command":"pnpm test --filter @compactor/tokenizer"}',
    'Ünïcödé façade — naïve café: 日本語のテキスト、中文文本, 한국어 텍스트, русский текст.',
    'Emoji 👩‍👩‍👧‍👦🚀✨ and flags 🇫🇷🇯🇵 mixed into a sentence.',
    `indentation${' '.repeat(64)}and\t\t\ttabs\n\n\n\nnewlines`,
    'A literal <|endoftext|> and <|im_start|>user markers are just text here.',
    '| column | value |\n|---|---|\n| tokens | 1234 |\n',
  ];
  const pieces: string[] = [];
  for (let index = 0; index < 400; index++) pieces.push(`${base[index % base.length]} (${index})`);
  return pieces;
}

export const corpusAvailable =
  piSessionFiles.every((file) => existsSync(corpusPath('pi', file))) &&
  existsSync(corpusPath('aider', 'chat-history.md')) &&
  existsSync(corpusPath('locomo', 'locomo10.json'));

/** At most `maxBytes` per source (UTF-8 bytes of the pieces taken in order). */
export function loadBenchText(maxBytes: number): BenchText[] {
  const sources: [string, () => string[]][] = corpusAvailable
    ? [
        ['pi sessions', piPieces],
        ['aider markdown', aiderPieces],
        ['locomo dialogue', locomoPieces],
      ]
    : [['built-in sample (corpus absent)', builtInPieces]];
  return sources.map(([source, load]) => {
    const pieces: string[] = [];
    let bytes = 0;
    for (const piece of load()) {
      const size = Buffer.byteLength(piece);
      if (bytes + size > maxBytes) break;
      pieces.push(piece);
      bytes += size;
    }
    return { source, pieces };
  });
}
