import { CompactorError, type ContentPart } from '@compactor/core';
import { describe, expect, it } from 'vitest';
import {
  claudeCalibrationTable,
  createCountCache,
  createTokenizer,
  documentPageTokensByProvider,
  imageTokensByProvider,
  newClaudeTokenizerFactor,
  uncalibratedClaude,
} from '../src/index.js';
import { message, referenceCount, text, toolResult } from './helpers.js';

const cache = createCountCache();
const gpt4o = createTokenizer({ model: 'gpt-4o', cache });
const claude = createTokenizer({ model: 'claude-sonnet-4-5-20250929', cache });
const claudeCalibration = claudeCalibrationTable['claude-3']!.calibration;

/** The cookbook's rule for one message: 3 tokens + the role + the content. */
function openAiMessage(role: string, ...contents: number[]): number {
  return 3 + referenceCount(role) + contents.reduce((a, b) => a + b, 0);
}

describe('OpenAI message counts (exact encoding, cookbook overheads)', () => {
  it('counts a text message as 3 + role + content', () => {
    const content = 'What is the capital of France? Answer in one word.';
    expect(gpt4o.countMessage(message('user', text(content)), 'openai-chat')).toBe(
      openAiMessage('user', referenceCount(content)),
    );
  });

  it('counts a tool call as its name, its JSON input and 3 tokens of framing', () => {
    const input = { path: '/src/index.ts', lines: [1, 20] };
    const counted = gpt4o.countMessage(
      message('assistant', { type: 'tool_call', id: 'c1', name: 'read_file', input }),
      'openai-chat',
    );
    expect(counted).toBe(
      openAiMessage('assistant', 3, referenceCount('read_file'), referenceCount(JSON.stringify(input))),
    );
  });

  it('counts a string tool result with its tool name', () => {
    const counted = gpt4o.countMessage(
      message('tool', toolResult('bash', 'total 0\ndrwxr-xr-x  2 root')),
      'openai-chat',
    );
    expect(counted).toBe(
      openAiMessage('tool', referenceCount('bash'), referenceCount('total 0\ndrwxr-xr-x  2 root')),
    );
  });

  it('counts a JSON tool result as its JSON', () => {
    const content = { status: 200, body: { items: ['a', 'b'] } };
    const counted = gpt4o.countMessage(message('tool', toolResult('http', content)), 'openai-chat');
    expect(counted).toBe(
      openAiMessage('tool', referenceCount('http'), referenceCount(JSON.stringify(content))),
    );
  });

  it('adds the outcome framing to a failed tool result', () => {
    const ok = gpt4o.countMessage(message('tool', toolResult('bash', 'exit 1')), 'openai-chat');
    const failed = gpt4o.countMessage(
      message('tool', toolResult('bash', 'exit 1', 'failure')),
      'openai-chat',
    );
    expect(failed).toBe(ok + referenceCount('failure'));
  });

  it('counts every tool result in one tool message as its own OpenAI message', () => {
    const one = gpt4o.countMessage(message('tool', toolResult('a', 'x')), 'openai-chat');
    const two = gpt4o.countMessage(
      message('tool', toolResult('a', 'x'), toolResult('a', 'x')),
      'openai-chat',
    );
    expect(two).toBe(2 * one);
  });

  it('counts reasoning text but never its signature', () => {
    const thought = 'Let me check the file before editing it.';
    const short = gpt4o.countMessage(
      message('assistant', { type: 'reasoning', text: thought, signature: 'sig' }),
      'openai-chat',
    );
    const long = gpt4o.countMessage(
      message('assistant', { type: 'reasoning', text: thought, signature: 'EqQBCkYIBRgCKkA'.repeat(500) }),
      'openai-chat',
    );
    expect(short).toBe(openAiMessage('assistant', referenceCount(thought)));
    expect(long).toBe(short);
  });

  it('counts an image as a fixed estimate and never tokenizes its base64 data', () => {
    const image = (data: string) =>
      message('user', { type: 'image', mediaType: 'image/png', source: { kind: 'base64', data } });
    const tiny = gpt4o.countMessage(image('iVBORw0KGgo='), 'openai-chat');
    const huge = gpt4o.countMessage(image('iVBORw0KGgoAAAANSUhEUgAA'.repeat(50_000)), 'openai-chat');
    expect(tiny).toBe(openAiMessage('user') + imageTokensByProvider.openai);
    expect(huge).toBe(tiny);
    const byUrl = gpt4o.countMessage(
      message('user', {
        type: 'image',
        mediaType: 'image/png',
        source: { kind: 'url', url: 'https://x/y.png' },
      }),
      'openai-chat',
    );
    expect(byUrl).toBe(tiny);
  });

  it("counts a tool result's images at the image estimate, plus the user message they follow in (ADR-0311)", () => {
    const screenshot = (data: string) =>
      message('tool', {
        ...toolResult('screenshot', 'Captured.'),
        media: [{ type: 'image', mediaType: 'image/png', source: { kind: 'base64', data } }],
      } as ContentPart);
    const textOnly = gpt4o.countMessage(
      message('tool', toolResult('screenshot', 'Captured.')),
      'openai-chat',
    );
    const tiny = gpt4o.countMessage(screenshot('iVBORw0KGgo='), 'openai-chat');
    const huge = gpt4o.countMessage(screenshot('iVBORw0KGgoAAAANSUhEUgAA'.repeat(50_000)), 'openai-chat');
    // The image estimate and one more message's framing (3 + role), never the base64 as text.
    expect(tiny).toBe(textOnly + imageTokensByProvider.openai + openAiMessage('user'));
    expect(huge).toBe(tiny);
    const claudeShot = claude.countMessage(
      screenshot('iVBORw0KGgoAAAANSUhEUgAA'.repeat(50_000)),
      'anthropic',
    );
    const claudeText = claude.countMessage(
      message('tool', toolResult('screenshot', 'Captured.')),
      'anthropic',
    );
    expect(claudeShot - claudeText).toBe(imageTokensByProvider.anthropic);
  });

  it('counts a base64 text document as its decoded text plus its title', () => {
    const body = 'Meeting notes: ship the tokenizer on Friday.\nOwner: the lead engineer.';
    const counted = gpt4o.countMessage(
      message('user', {
        type: 'document',
        mediaType: 'text/plain',
        title: 'notes.txt',
        source: { kind: 'base64', data: Buffer.from(body).toString('base64') },
      }),
      'openai-chat',
    );
    expect(counted).toBe(openAiMessage('user', referenceCount('notes.txt'), referenceCount(body)));
  });

  it('counts a PDF by its pages, and a referenced document as one page', () => {
    const pdf = [
      '%PDF-1.4',
      '1 0 obj << /Type /Pages /Kids [2 0 R 3 0 R 4 0 R] /Count 3 >>',
      '2 0 obj << /Type /Page >>',
      '3 0 obj << /Type /Page >>',
      '4 0 obj <</Type/Page>>',
    ].join('\n');
    const document = (source: { kind: 'base64'; data: string } | { kind: 'artifact'; artifactId: string }) =>
      message('user', { type: 'document', mediaType: 'application/pdf', source });
    const threePages = gpt4o.countMessage(
      document({ kind: 'base64', data: Buffer.from(pdf, 'latin1').toString('base64') }),
      'openai-chat',
    );
    const referenced = gpt4o.countMessage(document({ kind: 'artifact', artifactId: 'a1' }), 'openai-chat');
    expect(threePages).toBe(openAiMessage('user') + 3 * documentPageTokensByProvider.openai);
    expect(referenced).toBe(openAiMessage('user') + documentPageTokensByProvider.openai);
  });

  it('counts raw text exactly', () => {
    expect(gpt4o.count('plain text, exactly counted')).toBe(referenceCount('plain text, exactly counted'));
    expect(createTokenizer({ model: 'gpt-4', cache }).count('日本語のテキスト')).toBe(
      referenceCount('日本語のテキスト', 'cl100k_base'),
    );
  });

  it('gives the same count in every provider format for the same model', () => {
    const sample = message('user', text('the provider format does not change the model'));
    const counts = (['openai-chat', 'openai-responses', 'ai-sdk', 'anthropic'] as const).map((provider) =>
      gpt4o.countMessage(sample, provider),
    );
    expect(new Set(counts).size).toBe(1);
  });
});

describe('Claude message counts (calibrated estimate)', () => {
  it('reports where its calibration came from', () => {
    expect(claude.calibrationSource).toBe('calibrated');
    expect(claude.id).toContain('claude-sonnet-4-5');
    expect(claude.id).toContain('claude-3');
  });

  it('scales the exact count of text by the calibrated ratio, overheads and safety factor', () => {
    const content = 'Please refactor the renderer so the budget check happens once per request.';
    const expected = Math.ceil(
      claudeCalibration.safetyFactor *
        (claudeCalibration.ratios.text * referenceCount(content) +
          claudeCalibration.overheads.text +
          claudeCalibration.overheads.message),
    );
    expect(claude.countMessage(message('user', text(content)), 'anthropic')).toBe(expected);
  });

  it('applies the tool-result ratio and block overhead to a tool result', () => {
    const output = 'src/index.ts\nsrc/tokenizer.ts\n'.repeat(20);
    const exact = referenceCount('bash') + referenceCount(output);
    const expected = Math.ceil(
      claudeCalibration.safetyFactor *
        (claudeCalibration.ratios.toolResult * exact +
          claudeCalibration.overheads.toolResult +
          claudeCalibration.overheads.message),
    );
    expect(claude.countMessage(message('tool', toolResult('bash', output)), 'anthropic')).toBe(expected);
  });

  it('counts an image at Anthropic’s documented maximum', () => {
    const image = message('user', {
      type: 'image',
      mediaType: 'image/png',
      source: { kind: 'base64', data: 'A'.repeat(100_000) },
    });
    const overhead = Math.ceil(claudeCalibration.safetyFactor * claudeCalibration.overheads.message);
    expect(claude.countMessage(image, 'anthropic')).toBe(overhead + imageTokensByProvider.anthropic);
  });

  it('estimates raw text above its exact o200k count', () => {
    const content = 'A paragraph of ordinary English prose about compaction and budgets.';
    expect(claude.count(content)).toBe(
      Math.ceil(claudeCalibration.ratios.text * referenceCount(content) * claudeCalibration.safetyFactor),
    );
    expect(claude.count(content)).toBeGreaterThan(referenceCount(content));
  });

  it('uses Claude overheads whatever format the request is in', () => {
    const sample = message('user', text('an AI SDK call to Claude still costs Claude tokens'));
    expect(claude.countMessage(sample, 'ai-sdk')).toBe(claude.countMessage(sample, 'anthropic'));
  });
});

describe('safety margins where there is no calibration', () => {
  const content = 'An uncalibrated model must over-count, never under-count, this sentence.';
  const sample = () => message('user', text(content));

  it('applies the uncalibrated margin when the table has no entry', () => {
    const bare = createTokenizer({ model: 'claude-sonnet-4-5', calibrationTable: {}, cache });
    expect(bare.calibrationSource).toBe('uncalibrated');
    const expected = Math.ceil(
      uncalibratedClaude.ratios.text * referenceCount(content) +
        uncalibratedClaude.overheads.text +
        uncalibratedClaude.overheads.message,
    );
    expect(bare.countMessage(sample(), 'anthropic')).toBe(expected);
    expect(bare.countMessage(sample(), 'anthropic')).toBeGreaterThan(
      claude.countMessage(sample(), 'anthropic'),
    );
  });

  it('scales the Claude 3 calibration by the documented factor for the new tokenizer', () => {
    const opus47 = createTokenizer({ model: 'claude-opus-4-7', cache });
    expect(opus47.calibrationSource).toBe('derived');
    expect(opus47.calibration.ratios.text).toBeCloseTo(
      claudeCalibration.ratios.text * newClaudeTokenizerFactor,
      10,
    );
    expect(opus47.countMessage(sample(), 'anthropic')).toBeGreaterThan(
      claude.countMessage(sample(), 'anthropic'),
    );
  });

  it('scales the uncalibrated margin for a new-tokenizer model when nothing is calibrated', () => {
    const opus47 = createTokenizer({ model: 'claude-opus-4-7', calibrationTable: {}, cache });
    expect(opus47.calibrationSource).toBe('uncalibrated');
    expect(opus47.calibration.ratios.text).toBeCloseTo(
      uncalibratedClaude.ratios.text * newClaudeTokenizerFactor,
      10,
    );
  });

  it('estimates Gemini with an uncalibrated margin', () => {
    const gemini = createTokenizer({ model: 'gemini-2.5-pro', cache });
    expect(gemini.calibrationSource).toBe('uncalibrated');
    expect(gemini.count(content)).toBeGreaterThan(referenceCount(content));
  });

  it('uses a caller-supplied calibration as is', () => {
    const custom = createTokenizer({
      model: 'claude-sonnet-4-5',
      cache,
      calibration: { ...claudeCalibration, safetyFactor: 1 },
    });
    expect(custom.calibrationSource).toBe('caller');
    expect(custom.count(content)).toBe(Math.ceil(claudeCalibration.ratios.text * referenceCount(content)));
  });
});

describe('tokenizer options', () => {
  it('rejects an unknown provider format', () => {
    expect.assertions(1);
    try {
      gpt4o.countMessage(message('user', text('x')), 'cohere' as never);
    } catch (error) {
      expect(CompactorError.hasCode(error, 'validation')).toBe(true);
    }
  });

  it('rejects an unknown model unless its numbers are supplied', () => {
    expect(() => createTokenizer({ model: 'mystery-model' })).toThrowError(/unknown model/);
    const custom = createTokenizer({
      model: 'mystery-model',
      modelInfo: { contextWindow: 16_000, maxOutputTokens: 2_000, tokenizerFamily: 'cl100k_base' },
      cache,
    });
    expect(custom.encoding).toBe('cl100k_base');
    expect(custom.count('日本語')).toBe(referenceCount('日本語', 'cl100k_base'));
  });

  it('changes its id whenever its counts would change, and only then', () => {
    const base = createTokenizer({ model: 'claude-sonnet-4-5', cache });
    const images = createTokenizer({ model: 'claude-sonnet-4-5', cache, imageTokens: 999 });
    const unbiased = createTokenizer({
      model: 'claude-sonnet-4-5',
      cache,
      calibration: { ...claudeCalibration, safetyFactor: 1 },
    });
    expect(new Set([base.id, images.id, unbiased.id, gpt4o.id]).size).toBe(4);
    expect(createTokenizer({ model: 'anthropic/claude-sonnet-4-5-20250929', cache }).id).toBe(base.id);
  });

  it('counts with any backend to the same result', () => {
    const content = message('assistant', text('Same numbers from every backend: 12345 ✓'));
    const counts = (['gpt-tokenizer', 'js-tiktoken', 'tiktoken-wasm'] as const).map((backend) =>
      createTokenizer({ model: 'claude-opus-4-5', backend, cache: false }).countMessage(content, 'anthropic'),
    );
    expect(new Set(counts).size).toBe(1);
  });

  it('sums a conversation close to the sum of its messages', () => {
    const conversation = [
      message('user', text('first question')),
      message('assistant', text('first answer, a bit longer')),
    ];
    const total = claude.countMessages(conversation, 'anthropic');
    const sum = conversation.reduce((acc, item) => acc + claude.countMessage(item, 'anthropic'), 0);
    expect(total).toBeLessThanOrEqual(sum);
    expect(total).toBeGreaterThanOrEqual(sum - conversation.length);
  });
});
