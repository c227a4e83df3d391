import type { EstimateCalibration } from '../calibration/estimate-calibration.js';
import { stringifyJson } from '../json/stringify-json.js';
import type { ModelInfo } from '../models/model-info.js';
import type { MeasureContext } from './measure-content.js';
import type { Measurement } from './measurement.js';
import { addPart } from './measurement.js';
import type { FunctionTool, ToolChoiceKind } from './tool-schemas.js';

/** What the request counters need from a tokenizer (internal). */
export interface CountingEngine {
  readonly info: ModelInfo;
  readonly calibration: EstimateCalibration;
  readonly context: MeasureContext;
  exact(text: string): number;
  estimate(measurement: Measurement): number;
  /**
   * Tool definitions: function tools by the model's rules, `otherTools` (provider built-ins
   * without a JSON Schema) as their JSON; includes Anthropic's tool-use system prompt.
   */
  toolTokens(tools: readonly FunctionTool[], choice: ToolChoiceKind, otherTools?: readonly unknown[]): number;
  /** Tokens a whole request costs once (OpenAI reply priming, Anthropic turn framing). */
  readonly requestTokens: number;
}

/** Where each token of a request goes, in the model's tokens. */
export interface RequestBreakdown {
  /** System prompt / instructions, with their message framing. */
  system: number;
  tools: number;
  messages: number;
  /** Once-per-request framing. */
  framing: number;
  total: number;
}

export function breakdown(
  engine: CountingEngine,
  system: Measurement,
  messages: Measurement,
  tools: number,
): RequestBreakdown {
  const systemTokens = system.messages > 0 ? engine.estimate(system) : 0;
  const messageTokens = engine.estimate(messages);
  return {
    system: systemTokens,
    tools,
    messages: messageTokens,
    framing: engine.requestTokens,
    total: systemTokens + tools + messageTokens + engine.requestTokens,
  };
}

const base64Like = /^(?:data:[^,]{0,100},)?[A-Za-z0-9+/=\r\n_-]+$/;

/**
 * Counts a block this package does not model as its JSON (the faithful upper bound of what the
 * provider could render), with binary payloads (long base64 strings, byte arrays) replaced by
 * one image estimate each instead of being tokenized as text. `cache_control` is request
 * metadata, never shown to the model.
 */
export function measureUnknown(value: unknown, engine: CountingEngine, into: Measurement): void {
  measureJsonEstimate(value, engine.context, into);
}

/**
 * The JSON estimate behind {@link measureUnknown}, on a measuring context: a block's JSON as text,
 * each binary payload as one image estimate. Opaque provider parts are counted so (ADR-0250).
 *
 * @param value - Any JSON value.
 * @param context - The exact counter and the image estimate.
 * @param into - Changed in place.
 */
export function measureJsonEstimate(
  value: unknown,
  context: Pick<MeasureContext, 'exact' | 'imageTokens'>,
  into: Measurement,
): void {
  let binaries = 0;
  const json = stringifyJson(value, (key, child: unknown) => {
    if (key === 'cache_control') return undefined;
    if (ArrayBuffer.isView(child) || child instanceof ArrayBuffer) {
      binaries++;
      return '[binary]';
    }
    if (typeof child === 'string' && child.length > 512 && base64Like.test(child)) {
      binaries++;
      return '[binary]';
    }
    return child;
  });
  addPart(into, 'text', context.exact(json ?? ''));
  into.fixedTokens += binaries * context.imageTokens;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function asString(value: unknown): string {
  return typeof value === 'string' ? value : '';
}
