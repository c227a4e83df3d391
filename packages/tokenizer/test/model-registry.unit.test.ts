import { CompactorError } from '@compactor/core';
import { describe, expect, it } from 'vitest';
import { findModelInfo, getModelInfo, listModels, resolveModelInfo } from '../src/index.js';

function errorCode(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return CompactorError.isInstance(error) ? error.code : 'not a CompactorError';
  }
  return undefined;
}

describe('model registry', () => {
  it('knows current Claude, OpenAI and Gemini models', () => {
    for (const id of [
      'claude-opus-4-5',
      'claude-sonnet-4-5',
      'claude-haiku-4-5',
      'claude-opus-4-1',
      'claude-sonnet-4',
      'claude-3-7-sonnet',
      'claude-3-5-haiku',
      'gpt-4o',
      'gpt-4o-mini',
      'gpt-4.1',
      'o3',
      'o4-mini',
      'gpt-5',
      'gpt-5-mini',
      'gemini-2.0-flash',
      'gemini-2.5-pro',
      'gemini-2.5-flash',
    ]) {
      expect(getModelInfo(id).id).toBe(id);
    }
  });

  it('gives each model a plausible window and a family that matches its provider', () => {
    const families = {
      anthropic: ['claude-estimate'],
      openai: ['o200k_base', 'cl100k_base'],
      google: ['gemini-estimate'],
    };
    for (const model of listModels()) {
      expect(model.contextWindow).toBeGreaterThanOrEqual(8_192);
      expect(model.maxOutputTokens).toBeGreaterThan(0);
      expect(model.maxOutputTokens).toBeLessThanOrEqual(model.contextWindow);
      expect(families[model.provider]).toContain(model.tokenizerFamily);
    }
  });

  it('uses o200k for GPT-4o and later, cl100k for GPT-4 and GPT-3.5', () => {
    expect(getModelInfo('gpt-4o').tokenizerFamily).toBe('o200k_base');
    expect(getModelInfo('gpt-5').tokenizerFamily).toBe('o200k_base');
    expect(getModelInfo('gpt-4').tokenizerFamily).toBe('cl100k_base');
    expect(getModelInfo('gpt-3.5-turbo').tokenizerFamily).toBe('cl100k_base');
  });

  it.each([
    ['claude-sonnet-4-5-20250929', 'claude-sonnet-4-5'],
    ['claude-opus-4-5-20251101', 'claude-opus-4-5'],
    ['claude-haiku-4-5-20251001', 'claude-haiku-4-5'],
    ['claude-3-5-sonnet-20241022', 'claude-3-5-sonnet'],
    ['claude-3-5-sonnet-latest', 'claude-3-5-sonnet'],
    ['claude-sonnet-4-0', 'claude-sonnet-4'],
    ['anthropic/claude-opus-4-5', 'claude-opus-4-5'],
    ['anthropic/claude-sonnet-4.5', 'claude-sonnet-4-5'],
    ['anthropic/claude-3.7-sonnet:thinking', 'claude-3-7-sonnet'],
    ['us.anthropic.claude-sonnet-4-5-20250929-v1:0', 'claude-sonnet-4-5'],
    ['anthropic.claude-3-5-haiku-20241022-v1:0', 'claude-3-5-haiku'],
    ['claude-sonnet-4-5@20250929', 'claude-sonnet-4-5'],
    ['CLAUDE-OPUS-4-5', 'claude-opus-4-5'],
    ['gpt-4o-2024-08-06', 'gpt-4o'],
    ['openai/gpt-4.1-mini', 'gpt-4.1-mini'],
    ['gpt-4.1-mini-2025-04-14', 'gpt-4.1-mini'],
    ['chatgpt-4o-latest', 'chatgpt-4o-latest'],
    ['gpt-5-chat-latest', 'gpt-5-chat-latest'],
    ['models/gemini-2.5-pro', 'gemini-2.5-pro'],
    ['gemini-2.0-flash-001', 'gemini-2.0-flash'],
    ['gemini-2.5-flash-preview-05-20', 'gemini-2.5-flash'],
    ['google/gemini-2.5-flash-lite', 'gemini-2.5-flash-lite'],
  ])('matches %s to %s', (given, canonical) => {
    expect(getModelInfo(given).id).toBe(canonical);
  });

  it('does not confuse a model with a longer-named sibling', () => {
    expect(getModelInfo('gpt-4o-mini').id).toBe('gpt-4o-mini');
    expect(getModelInfo('gpt-4.1-nano').contextWindow).toBe(getModelInfo('gpt-4.1').contextWindow);
    expect(getModelInfo('claude-opus-4-1').id).not.toBe(getModelInfo('claude-opus-4').id);
  });

  it('rejects an unknown model with UnknownModelError', () => {
    expect(findModelInfo('llama-3-70b')).toBeUndefined();
    expect(errorCode(() => getModelInfo('llama-3-70b'))).toBe('unknown_model');
    expect(errorCode(() => getModelInfo('claude-opus-9'))).toBe('unknown_model');
    expect(errorCode(() => resolveModelInfo('my-finetune'))).toBe('unknown_model');
  });

  it('applies overrides to a known model', () => {
    const info = resolveModelInfo('claude-sonnet-4-5', { contextWindow: 1_000_000 });
    expect(info.contextWindow).toBe(1_000_000);
    expect(info.maxOutputTokens).toBe(getModelInfo('claude-sonnet-4-5').maxOutputTokens);
  });

  it('accepts an unknown model when the caller supplies the numbers', () => {
    const info = resolveModelInfo('my-finetune', {
      contextWindow: 32_000,
      maxOutputTokens: 4_000,
      tokenizerFamily: 'o200k_base',
    });
    expect(info).toMatchObject({
      id: 'my-finetune',
      provider: 'openai',
      contextWindow: 32_000,
      tokenizerFamily: 'o200k_base',
    });
    const claudeLike = resolveModelInfo('bedrock-claude-custom', {
      contextWindow: 200_000,
      maxOutputTokens: 8_000,
      tokenizerFamily: 'claude-estimate',
    });
    expect(claudeLike.provider).toBe('anthropic');
  });

  it('still rejects an unknown model given only some of the numbers', () => {
    expect(errorCode(() => resolveModelInfo('my-finetune', { contextWindow: 32_000 }))).toBe('unknown_model');
    expect(
      errorCode(() => resolveModelInfo('my-finetune', { contextWindow: 32_000, maxOutputTokens: 1_000 })),
    ).toBe('unknown_model');
  });

  it('rejects invalid override values', () => {
    expect(errorCode(() => resolveModelInfo('gpt-4o', { contextWindow: -5 }))).toBe('validation');
    expect(errorCode(() => resolveModelInfo('gpt-4o', { maxOutputTokens: 1.5 }))).toBe('validation');
    expect(errorCode(() => resolveModelInfo('gpt-4o', { tokenizerFamily: 'p50k_base' as never }))).toBe(
      'validation',
    );
  });

  it('puts the Claude 4.7+ tokenizer in its own generation', () => {
    expect(getModelInfo('claude-sonnet-4-5').tokenizerGeneration).toBe('claude-3');
    expect(getModelInfo('claude-haiku-4-5').tokenizerGeneration).toBe('claude-3');
    expect(getModelInfo('claude-opus-4-7').tokenizerGeneration).toBe('claude-4.7');
  });
});
