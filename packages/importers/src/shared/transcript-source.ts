import { type JsonLines, parseJsonLines } from './json-lines.js';

const notJson = Symbol('not json');

/** The text of a transcript, parsed lazily (once) as JSON or JSON Lines as adapters ask. */
export class TranscriptSource {
  private parsedJson: unknown = undefined;
  private jsonParsed = false;
  private parsedLines: JsonLines | undefined;
  private readonly memos = new Map<string, unknown>();

  constructor(
    readonly text: string,
    readonly fileName: string | undefined,
  ) {}

  /** The whole text as one JSON value, or undefined when it is not one. */
  json(): unknown {
    if (!this.jsonParsed) {
      this.jsonParsed = true;
      const start = this.text.trimStart()[0];
      if (start === '{' || start === '[') {
        try {
          this.parsedJson = JSON.parse(this.text);
        } catch {
          this.parsedJson = notJson;
        }
      } else {
        this.parsedJson = notJson;
      }
    }
    return this.parsedJson === notJson ? undefined : this.parsedJson;
  }

  jsonLines(): JsonLines {
    this.parsedLines ??= parseJsonLines(this.text);
    return this.parsedLines;
  }

  /** Compute something about the text once, however many conversations are imported from it. */
  memo<T>(key: string, compute: () => T): T {
    if (!this.memos.has(key)) this.memos.set(key, compute());
    return this.memos.get(key) as T;
  }

  /** Whether the first line that is not blank or a `//` comment starts a JSON object. */
  looksLikeJsonLines(): boolean {
    for (const line of this.text.split('\n', 200)) {
      const trimmed = line.trim();
      if (trimmed === '' || trimmed.startsWith('//')) continue;
      return trimmed.startsWith('{');
    }
    return false;
  }

  /** Lower-cased file name, for extension hints. */
  get lowerFileName(): string {
    return (this.fileName ?? '').toLowerCase();
  }
}
