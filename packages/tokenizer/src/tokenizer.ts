import { createHash } from 'node:crypto';
import type { Message, ProviderName, Tokenizer, ToolDefinition } from '@compactor/core';
import { ValidationError } from '@compactor/core';
import { countBounded, countBoundedIfExact, countBoundedYielding } from './bounded/bounded-count.js';
import type { CountingBounds } from './bounded/counting-bounds.js';
import { defaultCountingBounds, resolveCountingBounds } from './bounded/counting-bounds.js';
import { joinsExactly } from './bounded/segment-text.js';
import { contentKey, defaultHashThreshold } from './cache/content-key.js';
import type { CountCache } from './cache/count-cache.js';
import { createCountCache } from './cache/count-cache.js';
import type { CalibrationTable } from './calibration/calibration-table.js';
import type { EstimateCalibration } from './calibration/estimate-calibration.js';
import { estimateTokens } from './calibration/estimate-calibration.js';
import type { CalibrationSource } from './calibration/resolve-calibration.js';
import { resolveCalibration } from './calibration/resolve-calibration.js';
import type { CountingEngine, RequestBreakdown } from './counting/counting-engine.js';
import { measureUnknown } from './counting/counting-engine.js';
import { countPdfPages, decodeBase64Text } from './counting/document-pages.js';
import type { MeasureContext } from './counting/measure-content.js';
import { measureMessage } from './counting/measure-content.js';
import type { Measurement } from './counting/measurement.js';
import { addMeasurement, emptyMeasurement } from './counting/measurement.js';
import {
  anthropicRequestTokens,
  documentPageTokensByProvider,
  imageTokensByProvider,
  openAiReplyPrimingTokens,
} from './counting/provider-constants.js';
import type { AiSdkRequest } from './counting/requests/ai-sdk-request.js';
import { countAiSdkRequest } from './counting/requests/ai-sdk-request.js';
import type { AnthropicRequest } from './counting/requests/anthropic-request.js';
import { countAnthropicRequest } from './counting/requests/anthropic-request.js';
import { measureMediaPart } from './counting/requests/media-part.js';
import type { OpenAiChatRequest } from './counting/requests/openai-chat-request.js';
import { countOpenAiChatRequest } from './counting/requests/openai-chat-request.js';
import type { OpenAiResponsesRequest } from './counting/requests/openai-responses-request.js';
import { countOpenAiResponsesRequest } from './counting/requests/openai-responses-request.js';
import type { FunctionTool, ToolChoiceKind } from './counting/tool-schemas.js';
import { anthropicToolSystemPrompt, estimatedToolTokens, openAiToolTokens } from './counting/tool-schemas.js';
import { defaultEncoderBackend, getDefaultCountingEncoder, getEncoder } from './encoders/create-encoder.js';
import { maxRunBytesForWasm } from './encoders/multi-byte-run-encoder.js';
import type { EncoderBackendName, EncodingName, TokenEncoder } from './encoders/token-encoder.js';
import { encoderBackendNames } from './encoders/token-encoder.js';
import type { ModelInfo } from './models/model-info.js';
import { resolveModelInfo } from './models/model-registry.js';

/** The rendered request each provider format sends. */
export interface ProviderRequests {
  anthropic: AnthropicRequest;
  'openai-chat': OpenAiChatRequest;
  'openai-responses': OpenAiResponsesRequest;
  'ai-sdk': AiSdkRequest;
}

/** Which model a tokenizer counts for, and how. */
export interface CreateTokenizerOptions {
  /** Model id as the caller writes it (`claude-sonnet-4-5-20250929`, `openai/gpt-4o`, …). */
  model: string;
  /** Overrides of the registry entry; required fields for a model the registry does not know. */
  modelInfo?: Partial<ModelInfo>;
  /**
   * Base encoding.
   * @defaultValue the model's own (OpenAI) or the calibration's (estimates)
   */
  encoding?: EncodingName;
  /**
   * Which library encodes; all three give identical counts.
   * @defaultValue `defaultEncoderBackend`, the fastest measured
   */
  backend?: EncoderBackendName;
  /** A ready encoder (custom library, or a counting spy in tests); wins over `backend`. */
  encoder?: TokenEncoder;
  /**
   * Shared bounded count cache; `false` disables caching.
   * @defaultValue {@link defaultCountCache}, one per process
   */
  cache?: CountCache | false;
  /**
   * Strings longer than this are cached by SHA-256 instead of by themselves.
   * @defaultValue 256
   */
  hashThreshold?: number;
  /** Replaces the calibration resolved for the model (e.g. your own `fitEstimateCalibration`). */
  calibration?: EstimateCalibration;
  /**
   * Replaces the checked-in Claude calibration table.
   * @defaultValue `claudeCalibrationTable`
   */
  calibrationTable?: CalibrationTable;
  /**
   * Per-image estimate.
   * @defaultValue by provider (see provider-constants.ts)
   */
  imageTokens?: number;
  /**
   * Per-PDF-page estimate.
   * @defaultValue by provider
   */
  documentPageTokens?: number;
  /**
   * How counting stays linear in time on any input (see `CountingBounds`).
   * @defaultValue {@link defaultCountingBounds}
   */
  countingBounds?: Partial<CountingBounds>;
}

/** How {@link ProviderTokenizer.countMessageAsync} shares the event loop. */
export interface CountAsyncOptions {
  /**
   * Give the event loop back after this many milliseconds of counting.
   * @defaultValue 5
   */
  budgetMs?: number;
}

/** Core's `Tokenizer` port, plus whole-request counting and the measurements behind estimates. */
export interface ProviderTokenizer extends Tokenizer {
  readonly model: ModelInfo;
  readonly encoding: EncodingName;
  readonly calibration: EstimateCalibration;
  readonly calibrationSource: CalibrationSource;
  /**
   * Count in the base encoding (cached): exact for ordinary text; for text with a run of one
   * character class longer than `countingBounds.maxRunBytes`, never below the exact count.
   *
   * @param text - Any text.
   * @returns Its base-encoding tokens.
   */
  countExact(text: string): number;
  /**
   * `count(parts.join(''))`, from the parts' counts (a part of 64 characters or more memoized in the
   * count cache under its own key, the shorter ones between such parts counted together), where the
   * sum is exact: every join a pre-token boundary of the o200k/cl100k split patterns (a
   * space after a non-space, a non-digit after a digit, a character other than whitespace and `/`
   * after a line feed) and no part with a run or slice that bounded counting cuts inexactly; the
   * joined text counted whole otherwise (ADR-0460). Its count is cached, so `count` and
   * `countMessage` of the joined text find it. Without a cache it counts the joined text.
   *
   * @param parts - Texts, in order.
   * @returns The joined text's tokens, as `count` gives them.
   */
  countJoined(parts: readonly string[]): number;
  /**
   * `countMessage`, giving the event loop back every `budgetMs` while it counts large content
   * (same result). Use it where a request handler counts what a client sent.
   *
   * @param message - The message.
   * @param provider - The wire format.
   * @param options - How long to count between yields.
   * @returns Its tokens, as `countMessage` gives them.
   * @throws ValidationError for an unknown provider format.
   */
  countMessageAsync(message: Message, provider: ProviderName, options?: CountAsyncOptions): Promise<number>;
  /**
   * @param messages - Messages in order.
   * @param provider - The wire format.
   * @returns Their tokens, estimated from their summed measurement (one rounding).
   * @throws ValidationError for an unknown provider format.
   */
  countMessages(messages: readonly Message[], provider: ProviderName): number;
  /**
   * @param request - A rendered request in `provider`'s format.
   * @param provider - The format.
   * @returns Its input tokens: system, tools, messages and framing.
   * @throws ValidationError for an unknown provider format.
   */
  countRequest<P extends ProviderName>(request: ProviderRequests[P], provider: P): number;
  /**
   * @param request - A rendered request in `provider`'s format.
   * @param provider - The format.
   * @returns Its tokens by part (as `countRequest`, itemized).
   * @throws ValidationError for an unknown provider format.
   */
  countRequestBreakdown<P extends ProviderName>(request: ProviderRequests[P], provider: P): RequestBreakdown;
  /**
   * One image or document part of a rendered request (an OpenAI `image_url` / `input_image` / file
   * part, an Anthropic `image` / `document` block, an AI SDK `image` / `file` part), in the tokens
   * `countRequest` charges for it inside a message, message framing left out: the per-image
   * estimate, a PDF's pages, a title's text. For measuring a request part by part (the eval's
   * prompt-cache meter, ADR-0470).
   *
   * @param part - A content part as the request carries it.
   * @param provider - The request's format.
   * @returns Its tokens, or `undefined` when the part is not an image or document in that format.
   * @throws ValidationError for an unknown provider format.
   */
  countMediaPart(part: unknown, provider: ProviderName): number | undefined;
  /**
   * The exact measurement behind `countMessage` (what calibration regresses against).
   *
   * @param message - The message.
   * @returns Its base-encoding sizes per part kind.
   */
  measureMessage(message: Message): Measurement;
  /**
   * A measurement in the model's tokens.
   *
   * @param measurement - Base-encoding sizes.
   * @returns The calibrated estimate.
   */
  estimate(measurement: Measurement): number;
}

/**
 * `countJoined` memoizes parts from this length on; shorter ones (the words between the parts it
 * shares) are counted together, in one encoder call: alone, each costs more than its encoding (ADR-0460).
 */
const minimumMemoizedPart = 64;

/** One cache per process unless the caller brings one: repeated content is never re-tokenized. */
export const defaultCountCache: CountCache = createCountCache();

const providerNames = new Set<string>(['anthropic', 'openai-chat', 'openai-responses', 'ai-sdk']);

function checkProvider(provider: string): void {
  if (!providerNames.has(provider)) {
    throw new ValidationError(`unknown provider format "${provider}"`, [
      { path: 'provider', message: `expected one of ${[...providerNames].join(', ')}` },
    ]);
  }
}

function checkOptions(options: CreateTokenizerOptions): void {
  if (options.backend !== undefined && !encoderBackendNames.includes(options.backend)) {
    throw new ValidationError(`unknown tokenizer backend "${options.backend}"`, [
      { path: 'backend', message: `expected one of ${encoderBackendNames.join(', ')}` },
    ]);
  }
  if (
    options.encoding !== undefined &&
    options.encoding !== 'o200k_base' &&
    options.encoding !== 'cl100k_base'
  ) {
    throw new ValidationError(`unknown encoding "${options.encoding}"`, [
      { path: 'encoding', message: 'expected o200k_base or cl100k_base' },
    ]);
  }
}

function toFunctionTools(tools: readonly ToolDefinition[]): FunctionTool[] {
  return tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    parameters: tool.inputSchema,
  }));
}

/**
 * A tokenizer for one model. Overheads follow the model's provider, not the request format:
 * an AI SDK or OpenAI-compatible request to a Claude model still costs Claude tokens.
 *
 * @param options - The model, and optionally encoding, backend, cache, calibration and bounds.
 * @returns The tokenizer; its counting methods throw ValidationError for an unknown provider format.
 * @throws ValidationError for an unknown backend, encoding or tokenizer family, or invalid bounds
 *   or model overrides.
 * @throws UnknownModelError for an unknown model without the overrides that describe it.
 */
export function createTokenizer(options: CreateTokenizerOptions): ProviderTokenizer {
  checkOptions(options);
  const info = resolveModelInfo(options.model, options.modelInfo);
  const resolved = resolveCalibration(info, options.calibrationTable);
  const calibration = options.calibration ?? resolved.calibration;
  const calibrationSource: CalibrationSource = options.calibration ? 'caller' : resolved.source;
  const encoding = options.encoding ?? calibration.baseEncoding;
  const cache = options.cache === false ? undefined : (options.cache ?? defaultCountCache);
  const hashThreshold = options.hashThreshold ?? defaultHashThreshold;
  const bounds = resolveCountingBounds(options.countingBounds);
  // The default hands long multi-byte stretches to tiktoken's WASM core: same counts, about 3×
  // faster on CJK (ADR-0101). Its byte-pair merge is quadratic in a piece's length with no cache,
  // so only while bounded counting keeps pieces short. A backend chosen explicitly counts alone.
  const encoder =
    options.encoder ??
    (options.backend === undefined && bounds.maxRunBytes <= maxRunBytesForWasm
      ? getDefaultCountingEncoder(encoding)
      : getEncoder(encoding, options.backend ?? defaultEncoderBackend));
  const defaultBounds =
    bounds.maxRunBytes === defaultCountingBounds.maxRunBytes &&
    bounds.sliceLength === defaultCountingBounds.sliceLength &&
    bounds.tokensPerCut === defaultCountingBounds.tokensPerCut;
  // Known backends agree token for token, so they share cache entries; anything else is kept apart,
  // and so are counts made under other bounds (they cut long runs elsewhere).
  const encoderNamespace = (encoderBackendNames as readonly string[]).includes(encoder.backend)
    ? encoder.encoding
    : `${encoder.backend}/${encoder.encoding}`;
  const namespace = defaultBounds
    ? encoderNamespace
    : `${encoderNamespace}@${bounds.maxRunBytes}.${bounds.sliceLength}.${bounds.tokensPerCut}`;
  const toolResultsAreMessages = info.provider === 'openai';

  function cached(kind: string, text: string, compute: () => number): number {
    if (!cache) return compute();
    const key = contentKey(`${namespace}${kind}`, text, hashThreshold);
    const hit = cache.get(key);
    if (hit !== undefined) return hit;
    const value = compute();
    cache.set(key, value);
    return value;
  }

  const countExact = (text: string): number =>
    text.length === 0 ? 0 : cached('', text, () => countBounded(encoder, text, bounds));

  /**
   * `countExact(parts.join(''))` from the parts' own counts where that is exact (ADR-0460): parts of
   * `minimumMemoizedPart` characters or more are counted alone and memoized under their own key, the
   * shorter ones between them counted together; the sum is taken when every join between those
   * pieces is a pre-token boundary and no piece is cut inexactly alone, else the joined text is
   * counted whole. Its count is cached as `countExact` caches it, so counting it again is a hit.
   */
  function countExactJoined(parts: readonly string[]): number {
    const joined = parts.join('');
    if (joined.length === 0) return 0;
    if (!cache || !parts.some((part) => part.length >= minimumMemoizedPart)) return countExact(joined);
    const key = contentKey(namespace, joined, hashThreshold);
    const known = cache.get(key);
    if (known !== undefined) return known;
    const total = sumOfPieces(parts) ?? countBounded(encoder, joined, bounds);
    cache.set(key, total);
    return total;
  }

  /** The sum of `countExactJoined`'s pieces' counts, or undefined where it would not be exact. */
  function sumOfPieces(parts: readonly string[]): number | undefined {
    let total = 0;
    let previous = '';
    let between = '';
    const add = (piece: string, memoized: boolean): boolean => {
      if (!joinsExactly(previous, piece)) return false;
      const tokens = memoized
        ? cached(':joinable', piece, () => countBoundedIfExact(encoder, piece, bounds))
        : countBoundedIfExact(encoder, piece, bounds);
      if (tokens < 0) return false;
      total += tokens;
      previous = piece;
      return true;
    };
    for (const part of parts) {
      if (part.length < minimumMemoizedPart) {
        between += part;
        continue;
      }
      if (between !== '' && !add(between, false)) return undefined;
      between = '';
      if (!add(part, true)) return undefined;
    }
    if (between !== '' && !add(between, false)) return undefined;
    return total;
  }

  const context: MeasureContext = {
    exact: countExact,
    imageTokens: options.imageTokens ?? imageTokensByProvider[info.provider],
    documentPageTokens: options.documentPageTokens ?? documentPageTokensByProvider[info.provider],
    pdfPages: (base64) => cached(':pdf-pages', base64, () => countPdfPages(base64)),
    exactBase64Text: (base64) => countExact(decodeBase64Text(base64)),
  };

  const estimate = (measurement: Measurement): number => estimateTokens(measurement, calibration);

  function toolTokens(
    tools: readonly FunctionTool[],
    choice: ToolChoiceKind,
    otherTools: readonly unknown[] = [],
  ): number {
    if (tools.length + otherTools.length === 0) return 0;
    let others = 0;
    if (otherTools.length > 0) {
      const measurement = emptyMeasurement();
      for (const tool of otherTools) measureUnknown(tool, engine, measurement);
      others = estimate(measurement);
    }
    if (info.provider === 'openai') return openAiToolTokens(tools, encoder.encoding, countExact) + others;
    const schemas = estimatedToolTokens(tools, calibration, countExact) + others;
    return info.provider === 'anthropic' ? anthropicToolSystemPrompt(info, choice) + schemas : schemas;
  }

  const engine: CountingEngine = {
    info,
    calibration,
    context,
    exact: countExact,
    estimate,
    toolTokens,
    // Gemini gets Anthropic's assumed framing bound: nothing documents or measures its own.
    requestTokens: info.provider === 'openai' ? openAiReplyPrimingTokens : anthropicRequestTokens,
  };

  // Messages in the log never change, so a message object's count is kept for its lifetime.
  const messageCounts = new WeakMap<Message, number>();
  const measure = (message: Message) => measureMessage(message, context, toolResultsAreMessages);

  function countMessage(message: Message, provider: ProviderName): number {
    checkProvider(provider);
    const known = messageCounts.get(message);
    if (known !== undefined) return known;
    const count = estimate(measure(message));
    messageCounts.set(message, count);
    return count;
  }

  /**
   * Counts the message's large texts first, a slice at a time with the event loop given back in
   * between, into the count cache (or a local one); the ordinary `countMessage` then finds them
   * counted. Which texts a message needs comes from measuring it once with a recording counter.
   */
  async function countMessageAsync(
    message: Message,
    provider: ProviderName,
    options: CountAsyncOptions = {},
  ): Promise<number> {
    checkProvider(provider);
    const known = messageCounts.get(message);
    if (known !== undefined) return known;
    const budgetMs = options.budgetMs ?? 5;
    const large: string[] = [];
    const recording: MeasureContext = {
      ...context,
      exact: (text) => {
        if (text.length > bounds.sliceLength) large.push(text);
        return 0;
      },
      exactBase64Text: (base64) => recording.exact(decodeBase64Text(base64)),
    };
    measureMessage(message, recording, toolResultsAreMessages);
    const counted = new Map<string, number>();
    for (const text of large) {
      const key = cache ? contentKey(namespace, text, hashThreshold) : undefined;
      if (counted.has(text) || (key !== undefined && cache?.get(key) !== undefined)) continue;
      const count = await countBoundedYielding(encoder, text, bounds, budgetMs);
      counted.set(text, count);
      if (key !== undefined) cache?.set(key, count);
    }
    const prepared: MeasureContext = {
      ...context,
      exact: (text) => counted.get(text) ?? countExact(text),
      exactBase64Text: (base64) => prepared.exact(decodeBase64Text(base64)),
    };
    const count = estimate(measureMessage(message, prepared, toolResultsAreMessages));
    messageCounts.set(message, count);
    return count;
  }

  function countRequestBreakdown<P extends ProviderName>(
    request: ProviderRequests[P],
    provider: P,
  ): RequestBreakdown {
    checkProvider(provider);
    switch (provider) {
      case 'anthropic':
        return countAnthropicRequest(request as AnthropicRequest, engine);
      case 'openai-chat':
        return countOpenAiChatRequest(request as OpenAiChatRequest, engine);
      case 'openai-responses':
        return countOpenAiResponsesRequest(request as OpenAiResponsesRequest, engine);
      default:
        return countAiSdkRequest(request as AiSdkRequest, engine, toolResultsAreMessages);
    }
  }

  // Everything that changes a count is in the id, so counts stored under it never go stale.
  const settings = createHash('sha256')
    .update(
      JSON.stringify([
        calibration,
        context.imageTokens,
        context.documentPageTokens,
        ...(defaultBounds ? [] : [bounds]),
      ]),
    )
    .digest('hex')
    .slice(0, 10);

  return {
    id: `${info.id}|${encoder.encoding}|${calibrationSource}:${options.calibration ? 'caller' : resolved.key}|${settings}`,
    model: info,
    encoding: encoder.encoding,
    calibration,
    calibrationSource,
    countExact,
    count(text) {
      if (text.length === 0) return 0;
      return Math.ceil(calibration.ratios.text * countExact(text) * calibration.safetyFactor);
    },
    countJoined(parts) {
      const exact = countExactJoined(parts);
      return exact === 0 ? 0 : Math.ceil(calibration.ratios.text * exact * calibration.safetyFactor);
    },
    countMessage,
    countMessageAsync,
    countMessages(messages, provider) {
      checkProvider(provider);
      const total = emptyMeasurement();
      for (const message of messages) addMeasurement(total, measure(message));
      return estimate(total);
    },
    countTools(tools, provider) {
      checkProvider(provider);
      return toolTokens(toFunctionTools(tools), 'unknown');
    },
    countRequest: (request, provider) => countRequestBreakdown(request, provider).total,
    countRequestBreakdown,
    countMediaPart(part, provider) {
      checkProvider(provider);
      const measurement = measureMediaPart(part, provider, engine);
      return measurement === undefined ? undefined : estimate(measurement);
    },
    measureMessage: measure,
    estimate,
  };
}
