import type { EstimateCalibration } from '../calibration/estimate-calibration.js';
import type { EncodingName } from '../encoders/token-encoder.js';
import { stringifyJson } from '../json/stringify-json.js';
import type { ModelInfo } from '../models/model-info.js';
import {
  anthropicToolSystemPromptTokens,
  anthropicUnlistedToolSystemPromptTokens,
  openAiToolConstants,
} from './provider-constants.js';

/** A function tool as every format carries it: name, description, JSON Schema of its input. */
export interface FunctionTool {
  name: string;
  description?: string;
  parameters?: unknown;
}

export type ToolChoiceKind = 'auto' | 'forced' | 'unknown';

type ExactCounter = (text: string) => number;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function withoutTrailingPeriod(text: string): string {
  return text.endsWith('.') ? text.slice(0, -1) : text;
}

/**
 * The cookbook's `num_tokens_for_tools`, extended for schemas it does not model: a property's
 * keys other than type/description/enum (`items`, nested `properties`, `anyOf`, `format`, …)
 * are counted as their JSON, so nested schemas are over- rather than under-counted.
 */
export function openAiToolTokens(
  tools: readonly FunctionTool[],
  encoding: EncodingName,
  exact: ExactCounter,
): number {
  if (tools.length === 0) return 0;
  const constants = openAiToolConstants[encoding];
  let total = constants.functionEnd;
  for (const tool of tools) {
    total += constants.functionInit + exact(`${tool.name}:${withoutTrailingPeriod(tool.description ?? '')}`);
    const properties =
      isRecord(tool.parameters) && isRecord(tool.parameters.properties) ? tool.parameters.properties : {};
    const entries = Object.entries(properties);
    if (entries.length === 0) continue;
    total += constants.propertiesInit;
    for (const [key, rawSchema] of entries) {
      const schema = isRecord(rawSchema) ? rawSchema : {};
      const { type, description, enum: values, ...rest } = schema;
      total += constants.propertyKey;
      if (Array.isArray(values)) {
        total += constants.enumInit;
        for (const value of values) total += constants.enumItem + exact(String(value));
      }
      const typeText = Array.isArray(type) ? type.join(',') : typeof type === 'string' ? type : '';
      const descriptionText = typeof description === 'string' ? withoutTrailingPeriod(description) : '';
      total += exact(`${key}:${typeText}:${descriptionText}`);
      if (Object.keys(rest).length > 0) total += exact(stringifyJson(rest) ?? '');
    }
  }
  return total;
}

/** Anthropic's documented tool-use system prompt for the model (largest value when the choice is unknown). */
export function anthropicToolSystemPrompt(info: ModelInfo, choice: ToolChoiceKind): number {
  const listed = anthropicToolSystemPromptTokens[info.id];
  if (!listed) return anthropicUnlistedToolSystemPromptTokens;
  if (choice === 'auto') return listed[0];
  if (choice === 'forced') return listed[1];
  return Math.max(listed[0], listed[1]);
}

/**
 * Tool definitions for an estimated model: each tool's JSON (`name`, `description`,
 * `input_schema`) at the calibration's JSON ratio (`toolCall`: tool input is the JSON the
 * calibration measured) plus a tool-call block overhead, times the safety factor. Not
 * calibrated (the pi sessions never change their tools): bounded by the JSON punctuation, which
 * the model's own rendering of a tool does not spell out.
 */
export function estimatedToolTokens(
  tools: readonly FunctionTool[],
  calibration: EstimateCalibration,
  exact: ExactCounter,
): number {
  let total = 0;
  for (const tool of tools) {
    const json = stringifyJson({
      name: tool.name,
      description: tool.description ?? '',
      input_schema: tool.parameters ?? {},
    });
    total += calibration.ratios.toolCall * exact(json ?? '') + calibration.overheads.toolCall;
  }
  return Math.ceil(total * calibration.safetyFactor);
}
