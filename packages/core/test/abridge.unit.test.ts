import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  abridgedMessage,
  abridgeRecordOf,
  clipPastedInPlace,
  draftAbridgement,
  isPastedLine,
  PASTED_LONG_LINE_CHARS,
  pastedSegments,
  type ThreadMessage,
} from '../src/index.js';

const logLines = (count: number) =>
  Array.from(
    { length: count },
    (_, index) => `2025-01-01T10:00:${String(index % 60).padStart(2, '0')}Z INFO step ${index}`,
  );

function message(content: ThreadMessage['content'], extra: Partial<ThreadMessage> = {}): ThreadMessage {
  return { id: 'm1', role: 'user', content, seq: 1, index: 0, turn: 1, ...extra };
}

describe('clipPastedInPlace (ADR-0266)', () => {
  it('keeps the prose in place and cuts each long paste to head and tail under a marker', () => {
    const text = `Before the log.\n${logLines(30).join('\n')}\nAfter the log.\n\`\`\`ts\n${'const a = 1;\n'.repeat(20)}\`\`\`\nThe end.`;
    const clipped = clipPastedInPlace(text, 2)!;
    const lines = clipped.split('\n');
    expect(lines[0]).toBe('Before the log.');
    expect(lines[1]).toBe('[pasted 30 lines, 26 in the middle left out]');
    expect(lines.slice(2, 4)).toEqual(logLines(30).slice(0, 2));
    expect(lines[4]).toBe('…');
    expect(lines.slice(5, 7)).toEqual(logLines(30).slice(-2));
    expect(lines[7]).toBe('After the log.');
    expect(lines[8]).toBe('```ts');
    expect(lines.at(-2)).toBe('```');
    expect(lines.at(-1)).toBe('The end.');
  });

  it('leaves a message with no long paste alone', () => {
    expect(clipPastedInPlace('Just words.\nMore words.', 3)).toBeUndefined();
    expect(clipPastedInPlace(`Short log:\n${logLines(8).join('\n')}`, 5)).toBeUndefined();
  });

  it('never loses or reorders a prose line (property)', () => {
    const line = fc.oneof(
      fc.constantFrom('Please fix this.', 'It broke at noon.', '', 'Thanks!'),
      fc.constantFrom(...logLines(5)),
      fc.constantFrom('```', 'const x = 1;', '    indented code'),
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 80 }), fc.integer({ min: 1, max: 4 }), (lines, edge) => {
        const text = lines.join('\n');
        const clipped = clipPastedInPlace(text, edge) ?? text;
        const prose = pastedSegments(text).flatMap((segment) =>
          segment.kind === 'prose' ? segment.lines : [],
        );
        const out = clipped.split('\n');
        let at = 0;
        for (const kept of prose) {
          while (at < out.length && out[at] !== kept) at += 1;
          expect(at).toBeLessThan(out.length);
          at += 1;
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('a single long pasted line (ADR-0312)', () => {
  const minified = JSON.stringify(
    Array.from({ length: 400 }, (_, index) => ({ id: index, name: `item-${index}`, ok: index % 2 === 0 })),
  );
  const base64 = 'iVBORw0KGgoAAAANSUhEUgAA'.repeat(400);
  const logLine = `2025-01-01T10:00:00Z ERROR request failed payload=${minified}`;

  it('clips minified JSON, a base64 blob and a long log line to head and tail, keeping the request', () => {
    for (const pasted of [minified, base64, logLine]) {
      expect(isPastedLine(pasted)).toBe(true);
      const text = `Why does this fail?\n${pasted}\nPlease answer in French.`;
      const clipped = clipPastedInPlace(text, 3)!;
      expect(clipped).toBeDefined();
      const lines = clipped.split('\n');
      expect(lines[0]).toBe('Why does this fail?');
      expect(lines[2]).toBe('Please answer in French.');
      expect(lines[1]!.startsWith(pasted.slice(0, 600))).toBe(true);
      expect(lines[1]!.endsWith(pasted.slice(-600))).toBe(true);
      expect(lines[1]).toContain(`pasted line of ${pasted.length} characters`);
      expect(lines[1]!.length).toBeLessThan(1_400);
    }
  });

  it('clips a long line inside a short fenced block', () => {
    const clipped = clipPastedInPlace(`Look:\n\`\`\`json\n${minified}\n\`\`\`\nThanks.`, 3)!;
    expect(clipped.split('\n')[2]).toContain('pasted line of');
    expect(clipped.split('\n').at(-1)).toBe('Thanks.');
  });

  it("never clips a person's prose, however long, and keeps every instruction sentence (property)", () => {
    const word = fc.constantFrom(
      'the',
      'report',
      'should',
      'always',
      'use',
      'British',
      'spelling',
      'and',
      'keep',
      'answers',
      'short',
      "don't",
      'Alice',
      'said',
      'we',
      'meet',
      'on',
      'Tuesday',
      'near',
      'Paris',
      'café',
      'résumé',
      'well-known',
    );
    const sentence = fc
      .tuple(fc.array(word, { minLength: 3, maxLength: 25 }), fc.constantFrom('.', '!', '?', ',', ';'))
      .map(([words, end]) => `${words.join(' ')}${end}`);
    const paragraph = fc
      .array(sentence, { minLength: 1, maxLength: 400 })
      .map((sentences) => sentences.join(' '));
    fc.assert(
      fc.property(paragraph, fc.array(paragraph, { maxLength: 3 }), (first, rest) => {
        const text = [first, ...rest].join('\n');
        expect(clipPastedInPlace(text, 3)).toBeUndefined();
      }),
      { numRuns: 150 },
    );
    const instruction = fc.constantFrom(
      'Use British spelling.',
      'Keep answers under 100 words.',
      'Reply in French from now on.',
    );
    fc.assert(
      fc.property(
        fc.array(instruction, { minLength: 1, maxLength: 3 }),
        fc.constantFrom(minified, base64, logLine),
        (instructions, pasted) => {
          const clipped = clipPastedInPlace([...instructions, pasted, ...instructions].join('\n'), 3)!;
          for (const kept of instructions) expect(clipped.split('\n')).toContain(kept);
          expect(clipped.length).toBeLessThan(pasted.length);
        },
      ),
      { numRuns: 50 },
    );
  });

  it('keeps a long line of prose and a short line of JSON whole', () => {
    expect(isPastedLine('word '.repeat(PASTED_LONG_LINE_CHARS))).toBe(false);
    expect(isPastedLine(minified.slice(0, PASTED_LONG_LINE_CHARS - 1))).toBe(false);
  });
});

describe('draftAbridgement (ADR-0265)', () => {
  it("takes a lone image's caption from the message metadata and never shows base64", () => {
    const photo = message(
      [
        { type: 'text', text: 'My dog.' },
        { type: 'image', mediaType: 'image/jpeg', source: { kind: 'url', url: 'https://x.test/dog.jpg' } },
      ],
      { metadata: { blipCaption: 'a dog on a beach' } },
    );
    const draft = draftAbridgement(photo, 3)!;
    expect(draft.media).toHaveLength(1);
    expect(draft.media[0]!.text).toContain('Caption: a dog on a beach');
    expect(draft.media[0]!.text).toContain('Source: https://x.test/dog.jpg');

    const inline = message([
      { type: 'image', mediaType: 'image/png', source: { kind: 'base64', data: 'iVBORw0KGgo'.repeat(100) } },
      { type: 'image', mediaType: 'image/png', source: { kind: 'artifact', artifactId: 'art_1' } },
    ]);
    const texts = draftAbridgement(inline, 3)!.media.map((part) => part.text);
    expect(texts[0]).not.toContain('iVBORw0KGgo');
    expect(texts[0]).not.toContain('Caption:');
    expect(texts[1]).toContain('Source: artifact:art_1');
  });

  it('replaces only media and text parts: tool calls keep their place', () => {
    const assistant = message(
      [
        { type: 'image', mediaType: 'image/png', source: { kind: 'url', url: 'https://x.test/a.png' } },
        { type: 'tool_call', id: 'c1', name: 'bash', input: {} },
      ],
      { role: 'assistant' },
    );
    const record = abridgeRecordOf(assistant, draftAbridgement(assistant, 3)!);
    const shown = abridgedMessage(assistant, {
      ...record,
      parts: [...record.parts, { index: 1, reason: 'media', text: 'x' }],
    });
    expect(shown.content[0]!.type).toBe('text');
    expect(shown.content[1]).toEqual(assistant.content[1]);
  });

  it('does not clip an assistant message or a tool message', () => {
    const text = `Here:\n${logLines(40).join('\n')}`;
    expect(draftAbridgement(message([{ type: 'text', text }], { role: 'assistant' }), 3)).toBeUndefined();
    expect(draftAbridgement(message([{ type: 'text', text }]), 3)?.pastes).toHaveLength(1);
  });

  it('drafts a message once per edge: later asks get the same draft, another edge its own', () => {
    const pasted = message([{ type: 'text', text: `Look:\n${logLines(40).join('\n')}` }]);
    const first = draftAbridgement(pasted, 3);
    expect(draftAbridgement(pasted, 3)).toBe(first);
    const wider = draftAbridgement(pasted, 5)!;
    expect(wider).not.toBe(first);
    expect(wider.pastes[0]!.clipped).toBe(clipPastedInPlace(`Look:\n${logLines(40).join('\n')}`, 5));
    // An equal message that is another object is drafted from its own content.
    expect(draftAbridgement({ ...pasted }, 5)).toEqual(wider);
  });
});
