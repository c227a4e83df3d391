import type { Message, ProviderName } from '@compactor/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createTokenizer, type ProviderTokenizer, stringifyJson, type TokenEncoder } from '../src/index.js';
import { message, text, toolResult } from './helpers.js';

/**
 * Every way the package counts goes through the bounded counter: raw text, messages (sync and
 * async), tools, and the four request formats, for OpenAI's exact encodings and the Claude
 * estimate. "Unbounded" is the same tokenizer with bounds too large to ever cut: the plain
 * encoder's count. Over-long input must count at least as much as that, ordinary input the same.
 */

const unbounded = { maxRunBytes: 1e12, sliceLength: 1e12, tokensPerCut: 1 };
const models = ['gpt-4o', 'gpt-4', 'claude-sonnet-4-5', 'gemini-2.5-pro'] as const;
const formats: readonly ProviderName[] = ['anthropic', 'openai-chat', 'openai-responses', 'ai-sdk'];

function pair(model: string): { bounded: ProviderTokenizer; plain: ProviderTokenizer } {
  return {
    bounded: createTokenizer({ model, cache: false }),
    plain: createTokenizer({ model, cache: false, countingBounds: unbounded }),
  };
}

/** The same content in every request format: a system prompt, a user text, a tool call and its result. */
function requests(system: string, userText: string, input: unknown, output: string) {
  return {
    anthropic: {
      system,
      messages: [
        { role: 'user', content: userText },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'read', input }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: output }] },
      ],
    },
    'openai-chat': {
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: userText },
        {
          role: 'assistant',
          tool_calls: [
            { id: 't1', type: 'function', function: { name: 'read', arguments: stringifyJson(input) } },
          ],
        },
        { role: 'tool', tool_call_id: 't1', content: output },
      ],
    },
    'openai-responses': {
      instructions: system,
      input: [
        { role: 'user', content: userText },
        { type: 'function_call', call_id: 't1', name: 'read', arguments: stringifyJson(input) },
        { type: 'function_call_output', call_id: 't1', output },
      ],
    },
    'ai-sdk': {
      system,
      messages: [
        { role: 'user', content: userText },
        { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 't1', toolName: 'read', input }] },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: 't1',
              toolName: 'read',
              output: { type: 'text', value: output },
            },
          ],
        },
      ],
    },
  } as const;
}

function toolCall(input: unknown) {
  return { type: 'tool_call' as const, id: 't1', name: 'read', input };
}

const adversarial = fc.oneof(
  fc
    .constantFrom('a', 'x', '的', '=', ' ', '🙂')
    .chain((c) => fc.integer({ min: 200, max: 1_200 }).map((n) => c.repeat(n))),
  fc
    .array(fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz+/'), {
      minLength: 300,
      maxLength: 900,
    })
    .map((cs) => cs.join('')),
);
const ordinary = fc
  .array(fc.constantFrom('the', 'model', 'reads', 'src/index.ts', '42', 'and', 'then', 'writes.', '\n'), {
    maxLength: 60,
  })
  .map((words) => words.join(' '));

describe('every counting path is bounded', () => {
  it('counts ordinary content exactly as before, and over-long content never lower, in every format', () => {
    for (const model of models) {
      const { bounded, plain } = pair(model);
      fc.assert(
        fc.property(fc.oneof(ordinary, adversarial), fc.oneof(ordinary, adversarial), (first, second) => {
          const ordinaryInput = !/(.)\1{60}/u.test(first + second) && first.length + second.length < 2_000;
          const compare = (a: number, b: number) =>
            ordinaryInput ? expect(a).toBe(b) : expect(a).toBeGreaterThanOrEqual(b);
          compare(bounded.count(first), plain.count(first));
          const content = message('assistant', text(first), toolCall({ path: second }));
          compare(bounded.countMessage(content, 'anthropic'), plain.countMessage(content, 'anthropic'));
          const result = message('tool', toolResult('read', second));
          compare(
            bounded.countMessages([content, result], 'openai-chat'),
            plain.countMessages([content, result], 'openai-chat'),
          );
          const all = requests(first, second, { query: first }, second);
          for (const format of formats) {
            compare(
              bounded.countRequest(all[format] as never, format),
              plain.countRequest(all[format] as never, format),
            );
          }
          compare(
            bounded.countTools(
              [{ name: 'read', description: first, inputSchema: { type: 'object' } }],
              'anthropic',
            ),
            plain.countTools(
              [{ name: 'read', description: first, inputSchema: { type: 'object' } }],
              'anthropic',
            ),
          );
        }),
        { numRuns: 25 },
      );
    }
  });

  it("countMessageAsync gives countMessage's result, large texts included, and yields on the way", async () => {
    const tokenizer = createTokenizer({ model: 'claude-sonnet-4-5', cache: false });
    const other = createTokenizer({ model: 'claude-sonnet-4-5', cache: false });
    const large = `${'lorem ipsum dolor sit amet 12345 '.repeat(3_000)}${'的'.repeat(20_000)}${'a'.repeat(30_000)}`;
    const content: Message = message('assistant', text(large), toolCall({ body: large.slice(0, 50_000) }), {
      type: 'document',
      mediaType: 'text/plain',
      source: { kind: 'base64', data: Buffer.from(large).toString('base64') },
    });
    let turns = 0;
    const ticking = setInterval(() => {
      turns++;
    }, 0);
    const asynchronous = await tokenizer.countMessageAsync(content, 'anthropic', { budgetMs: 1 });
    clearInterval(ticking);
    expect(asynchronous).toBe(other.countMessage(content, 'anthropic'));
    expect(turns).toBeGreaterThan(0);
  });

  it('never hands the encoder more than a bounded run, on a megabyte through every path', () => {
    const seen: number[] = [];
    const spy: TokenEncoder = {
      backend: 'spy',
      encoding: 'o200k_base',
      countTokens: (piece) => {
        seen.push(
          (piece.match(/(.)\1*/gsu) ?? []).reduce(
            (longest, run) => Math.max(longest, Buffer.byteLength(run)),
            0,
          ),
        );
        return piece.length;
      },
    };
    const tokenizer = createTokenizer({ model: 'claude-sonnet-4-5', encoder: spy, cache: false });
    const megabyte = 'a'.repeat(1 << 20);
    const all = requests(megabyte, megabyte, { data: megabyte }, megabyte);
    for (const format of formats) tokenizer.countRequest(all[format] as never, format);
    tokenizer.countMessage(message('assistant', text(megabyte), toolCall({ data: megabyte })), 'anthropic');
    expect(seen.length).toBeGreaterThan(0);
    expect(Math.max(...seen)).toBeLessThanOrEqual(256);
  });
});

describe('deeply nested JSON', () => {
  function nested(depth: number, leaf: unknown = {}): unknown {
    let value: unknown = leaf;
    for (let level = 0; level < depth; level++) value = level % 2 === 0 ? { a: value } : [value];
    return value;
  }

  it('is counted at 5,000 levels, in tool calls, unknown blocks and tool schemas, without a RangeError', () => {
    for (const depth of [5_000]) {
      const deep = nested(depth);
      for (const model of models) {
        const tokenizer = createTokenizer({ model, cache: false });
        expect(tokenizer.countMessage(message('assistant', toolCall(deep)), 'anthropic')).toBeGreaterThan(
          depth / 4,
        );
        expect(
          tokenizer.countMessage(message('tool', toolResult('read', { deep })), 'anthropic'),
        ).toBeGreaterThan(depth / 4);
        const all = requests('system', 'user', deep, 'output');
        for (const format of formats) {
          expect(tokenizer.countRequest(all[format] as never, format)).toBeGreaterThan(depth / 4);
        }
        expect(
          tokenizer.countRequest(
            {
              messages: [{ role: 'user', content: [{ type: 'unknown_block', deep }] }],
              tools: [{ name: 't', input_schema: { type: 'object', properties: { p: { items: deep } } } }],
            },
            'anthropic',
          ),
        ).toBeGreaterThan(depth / 4);
      }
    }
  });

  it('is counted at 100,000 levels', () => {
    const tokenizer = createTokenizer({ model: 'claude-sonnet-4-5', cache: false });
    expect(
      tokenizer.countMessage(message('assistant', toolCall(nested(100_000))), 'anthropic'),
    ).toBeGreaterThan(25_000);
  });

  it('serializes exactly as JSON.stringify does, at any depth', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer({ min: 0, max: 3 }), (value, wrap) => {
        expect(stringifyJson(nested(wrap, value))).toBe(JSON.stringify(nested(wrap, value)));
      }),
    );
    const depth = 20_000;
    expect(stringifyJson(nested(depth))).toBe(`${'[{"a":'.repeat(depth / 2)}{}${'}]'.repeat(depth / 2)}`);
    const replaced = stringifyJson(nested(depth, { secret: 'x', keep: 1 }), (key, value) =>
      key === 'secret' ? undefined : value,
    );
    expect(replaced).toBe(`${'[{"a":'.repeat(depth / 2)}{"keep":1}${'}]'.repeat(depth / 2)}`);
    expect(
      stringifyJson(
        nested(depth, { when: new Date(0), skip: undefined, list: [undefined, () => 1, Number.NaN] }),
      ),
    ).toContain('{"when":"1970-01-01T00:00:00.000Z","list":[null,null,null]}');
  });
});
