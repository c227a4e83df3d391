import type { ModelInfo } from './model-info.js';

type Entry = Omit<ModelInfo, 'provider' | 'tokenizerGeneration'> & {
  tokenizerGeneration?: ModelInfo['tokenizerGeneration'];
  /** Other names the provider or common gateways use for the same model (dated ids are matched anyway). */
  aliases?: readonly string[];
};

function claude(id: string, contextWindow: number, maxOutputTokens: number, aliases: string[] = []): Entry {
  return { id, contextWindow, maxOutputTokens, tokenizerFamily: 'claude-estimate', aliases };
}
function claudeNewTokenizer(id: string, contextWindow: number, maxOutputTokens: number): Entry {
  return { ...claude(id, contextWindow, maxOutputTokens), tokenizerGeneration: 'claude-4.7' };
}
function openai(
  id: string,
  contextWindow: number,
  maxOutputTokens: number,
  encoding: 'o200k_base' | 'cl100k_base' = 'o200k_base',
): Entry {
  return { id, contextWindow, maxOutputTokens, tokenizerFamily: encoding };
}
function gemini(id: string, contextWindow: number, maxOutputTokens: number): Entry {
  return { id, contextWindow, maxOutputTokens, tokenizerFamily: 'gemini-estimate' };
}

/**
 * Anthropic: platform.claude.com model pages ("Context window · Max output"), checked 2026.
 * The 1M-token beta of Sonnet 4 / 4.5 is opt-in (a request header), so their window stays 200k:
 * pass `contextWindow` to `resolveModelInfo` when you enable it.
 */
const anthropicModels: Entry[] = [
  claude('claude-3-haiku', 200_000, 4_096),
  claude('claude-3-opus', 200_000, 4_096),
  claude('claude-3-5-haiku', 200_000, 8_192),
  claude('claude-3-5-sonnet', 200_000, 8_192),
  claude('claude-3-7-sonnet', 200_000, 64_000, ['claude-sonnet-3-7']),
  claude('claude-sonnet-4', 200_000, 64_000, ['claude-sonnet-4-0', 'claude-4-sonnet']),
  claude('claude-opus-4', 200_000, 32_000, ['claude-opus-4-0', 'claude-4-opus']),
  claude('claude-opus-4-1', 200_000, 32_000),
  claude('claude-sonnet-4-5', 200_000, 64_000),
  claude('claude-haiku-4-5', 200_000, 64_000),
  claude('claude-opus-4-5', 200_000, 64_000),
  claude('claude-opus-4-6', 1_000_000, 128_000),
  claude('claude-sonnet-4-6', 1_000_000, 64_000),
  claudeNewTokenizer('claude-opus-4-7', 1_000_000, 128_000),
  claudeNewTokenizer('claude-opus-4-8', 1_000_000, 128_000),
  claudeNewTokenizer('claude-opus-5', 1_000_000, 128_000),
  claudeNewTokenizer('claude-sonnet-5', 1_000_000, 128_000),
  claudeNewTokenizer('claude-fable-5', 1_000_000, 128_000),
  claudeNewTokenizer('claude-mythos-5', 1_000_000, 128_000),
  claudeNewTokenizer('claude-fable-5-1', 1_000_000, 128_000),
  claudeNewTokenizer('claude-opus-5-5', 1_000_000, 128_000),
  claudeNewTokenizer('claude-sonnet-5-5', 1_000_000, 128_000),
];

/** OpenAI: the model specs shipped in gpt-tokenizer 4.0.0 (`context_window`, `max_output_tokens`). */
const openaiModels: Entry[] = [
  openai('gpt-3.5-turbo', 16_385, 4_096, 'cl100k_base'),
  openai('gpt-4', 8_192, 8_192, 'cl100k_base'),
  openai('gpt-4-turbo', 128_000, 4_096, 'cl100k_base'),
  openai('gpt-4o', 128_000, 16_384),
  openai('gpt-4o-mini', 128_000, 16_384),
  openai('chatgpt-4o-latest', 128_000, 16_384),
  openai('gpt-4.1', 1_047_576, 32_768),
  openai('gpt-4.1-mini', 1_047_576, 32_768),
  openai('gpt-4.1-nano', 1_047_576, 32_768),
  openai('o1', 200_000, 100_000),
  openai('o1-mini', 128_000, 65_536),
  openai('o1-pro', 200_000, 100_000),
  openai('o3', 200_000, 100_000),
  openai('o3-mini', 200_000, 100_000),
  openai('o3-pro', 200_000, 100_000),
  openai('o4-mini', 200_000, 100_000),
  openai('gpt-5', 400_000, 128_000),
  openai('gpt-5-mini', 400_000, 128_000),
  openai('gpt-5-nano', 400_000, 128_000),
  openai('gpt-5-pro', 400_000, 272_000),
  openai('gpt-5-codex', 400_000, 128_000),
  openai('gpt-5-chat-latest', 128_000, 16_384),
  openai('gpt-5.1', 400_000, 128_000),
  openai('gpt-5.1-codex', 400_000, 128_000),
  openai('gpt-5.1-codex-max', 400_000, 128_000),
  openai('gpt-5.1-codex-mini', 400_000, 128_000),
  openai('gpt-5.2', 400_000, 128_000),
  openai('gpt-5.2-codex', 400_000, 128_000),
  openai('gpt-5.2-pro', 400_000, 128_000),
  openai('gpt-5.3-codex', 400_000, 128_000),
  openai('gpt-5.4', 1_050_000, 128_000),
  openai('gpt-5.4-pro', 1_050_000, 128_000),
  openai('gpt-5.4-mini', 400_000, 128_000),
  openai('gpt-5.4-nano', 400_000, 128_000),
  openai('gpt-5.5', 1_050_000, 128_000),
  openai('gpt-5.5-pro', 1_050_000, 128_000),
];

/** Google: ai.google.dev Gemini model pages (input token limit 1,048,576; output limits below). */
const googleModels: Entry[] = [
  gemini('gemini-2.0-flash', 1_048_576, 8_192),
  gemini('gemini-2.0-flash-lite', 1_048_576, 8_192),
  gemini('gemini-2.5-pro', 1_048_576, 65_536),
  gemini('gemini-2.5-flash', 1_048_576, 65_536),
  gemini('gemini-2.5-flash-lite', 1_048_576, 65_536),
];

export interface RegistryRow {
  info: ModelInfo;
  aliases: readonly string[];
}

function rows(
  entries: Entry[],
  provider: ModelInfo['provider'],
  generation: ModelInfo['tokenizerGeneration'],
): RegistryRow[] {
  return entries.map(({ aliases = [], tokenizerGeneration, ...rest }) => ({
    info: { ...rest, provider, tokenizerGeneration: tokenizerGeneration ?? generation },
    aliases,
  }));
}

export const modelTable: readonly RegistryRow[] = [
  ...rows(anthropicModels, 'anthropic', 'claude-3'),
  ...rows(openaiModels, 'openai', 'openai'),
  ...rows(googleModels, 'google', 'gemini'),
];
