/**
 * Every fixed constant the counters add, with where it comes from. "Documented" means a
 * provider's own documentation; "assumed" means nothing measures it and it is set to over-count.
 */

/**
 * OpenAI, documented: the cookbook "How to count tokens with tiktoken" (openai/openai-cookbook,
 * examples/How_to_count_tokens_with_tiktoken.ipynb): every message costs 3 tokens plus its
 * encoded values (the role among them), a `name` costs 1 more, and every reply is primed with
 * `<|start|>assistant<|message|>`, 3 tokens per request.
 */
export const openAiTokensPerMessage = 3;
export const openAiTokensPerName = 1;
export const openAiReplyPrimingTokens = 3;
/**
 * OpenAI, community-measured: an assistant tool call costs its name, its arguments and 3 tokens
 * of framing (hmarr/openai-chat-tokens, as shipped in gpt-tokenizer's `functionCalling`).
 */
export const openAiToolCallTokens = 3;

/**
 * OpenAI tool definitions, documented: the cookbook's `num_tokens_for_tools`, verified there
 * against the API (101 prompt tokens for gpt-4o). `functionInit` is 7 for o200k models (gpt-4o
 * and later) and 10 for cl100k models (gpt-3.5-turbo, gpt-4); `functionEnd` is added once per request.
 */
export const openAiToolConstants = {
  o200k_base: {
    functionInit: 7,
    propertiesInit: 3,
    propertyKey: 3,
    enumInit: -3,
    enumItem: 3,
    functionEnd: 12,
  },
  cl100k_base: {
    functionInit: 10,
    propertiesInit: 3,
    propertyKey: 3,
    enumInit: -3,
    enumItem: 3,
    functionEnd: 12,
  },
} as const;

/**
 * Anthropic, documented: the tool-use system prompt Anthropic adds when `tools` is non-empty
 * ("Tool use system prompt token count", platform.claude.com tool-use pricing). Values are
 * `[auto|none, any|tool]`. Models the table does not list get the largest documented value.
 */
export const anthropicToolSystemPromptTokens: Readonly<Record<string, readonly [number, number]>> = {
  'claude-opus-4-5': [346, 313],
  'claude-opus-4-1': [346, 313],
  'claude-opus-4': [346, 313],
  'claude-sonnet-4-5': [346, 313],
  'claude-sonnet-4': [346, 313],
  'claude-3-7-sonnet': [346, 313],
  'claude-haiku-4-5': [346, 313],
  'claude-3-5-haiku': [264, 340],
  'claude-3-opus': [530, 281],
  'claude-3-5-sonnet': [159, 235],
  'claude-3-haiku': [264, 340],
};
export const anthropicUnlistedToolSystemPromptTokens = 530;

/**
 * Anthropic, assumed: the framing a Messages request costs once (turn markers around the
 * conversation and before the reply). Prompt growth between calls cannot observe it, so it is
 * a small over-counting bound, not a measurement.
 */
export const anthropicRequestTokens = 10;

/**
 * Per-image estimates (base64 data is never tokenized as text). Documented worst cases:
 * - Anthropic: tokens ≈ width × height / 750, and images are downscaled to ≈ 1.15 megapixels,
 *   so one image costs at most ≈ 1,600 tokens (platform.claude.com, Vision).
 * - OpenAI: high detail is 85 + 170 per 512-px tile after fitting in 2048² with the short side at
 *   768 px: at most 8 tiles, 1,445 tokens (GPT-4o family; patch-based mini models can cost more:
 *   pass `imageTokens`).
 * - Google: 258 tokens per 768×768 tile; 1,032 covers an image up to 1536×1536.
 */
export const imageTokensByProvider = { anthropic: 1_600, openai: 1_445, google: 1_032 } as const;

/**
 * Per-page estimates for PDFs (each page is sent as text plus a page image). Anthropic documents
 * 1,500–3,000 text tokens per page plus the image; OpenAI extracts text and an image per page
 * the same way; Google documents 258 tokens per page. A PDF whose pages cannot be counted (a URL
 * or artifact reference) is counted as one page.
 */
export const documentPageTokensByProvider = { anthropic: 4_600, openai: 4_445, google: 258 } as const;
