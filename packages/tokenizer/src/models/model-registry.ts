import { UnknownModelError, ValidationError } from '@compactor/core';
import type { ModelInfo, ModelProvider, TokenizerFamily, TokenizerGeneration } from './model-info.js';
import { tokenizerFamilies } from './model-info.js';
import { modelTable } from './model-table.js';

const byName = new Map<string, ModelInfo>();
for (const row of modelTable) {
  byName.set(row.info.id, row.info);
  for (const alias of row.aliases) byName.set(alias, row.info);
}

/**
 * Rewrites that turn the names gateways and clouds use into canonical ids, applied in order;
 * the registry is consulted after each one so a canonical id that happens to look dated or
 * suffixed (`chatgpt-4o-latest`) is found before it is rewritten.
 */
const rewrites: ReadonlyArray<(id: string) => string> = [
  (id) => id.trim().toLowerCase(),
  // Bedrock version suffix (`-v1:0`), then gateway variants (`:thinking`, `:free`).
  (id) => id.replace(/-v\d+(?::\d+)?$/, '').replace(/:[a-z0-9-]+$/, ''),
  // Provider paths: `anthropic/…`, `openai/…`, Gemini's `models/…`.
  (id) => id.slice(id.lastIndexOf('/') + 1),
  // Bedrock ids: `anthropic.claude-…`, with an optional region (`us.`, `eu.`, `global.`).
  (id) => id.replace(/^(?:[a-z]+\.)?(?:anthropic|openai|google)\./, ''),
  // Vertex AI dates: `claude-sonnet-4-5@20250929`.
  (id) => id.replace(/@[0-9]+$/, ''),
  // Dotted Claude versions used by gateways: `claude-sonnet-4.5`, `claude-3.5-sonnet`.
  (id) => (id.startsWith('claude') ? id.replace(/(\d)\.(\d)/g, '$1-$2') : id),
  // Dated snapshots: `-20250929`, `-2024-08-06`.
  (id) => id.replace(/-\d{8}$/, '').replace(/-\d{4}-\d{2}-\d{2}$/, ''),
  (id) => id.replace(/-latest$/, ''),
  // Gemini revisions and previews: `-001`, `-preview-06-05`, `-exp-03-25`.
  (id) => id.replace(/-\d{3}$/, '').replace(/-(?:preview|exp)(?:-\d{2}-\d{2})?$/, ''),
];

/**
 * The registry entry for `model`. Matching is described in `rewrites`.
 *
 * @param model - The model id as the caller writes it (dated, prefixed, dotted…).
 * @returns The entry, or undefined for an unknown model.
 */
export function findModelInfo(model: string): ModelInfo | undefined {
  let id = model;
  for (const rewrite of rewrites) {
    id = rewrite(id);
    const found = byName.get(id);
    if (found) return found;
  }
  return undefined;
}

/**
 * The registry entry for `model`.
 *
 * @param model - The model id as the caller writes it.
 * @returns The entry.
 * @throws UnknownModelError for a model the registry does not know.
 */
export function getModelInfo(model: string): ModelInfo {
  const found = findModelInfo(model);
  if (!found) throw new UnknownModelError(model);
  return found;
}

/**
 * Every model the registry knows.
 *
 * @returns Their entries, in registry order.
 */
export function listModels(): ModelInfo[] {
  return modelTable.map((row) => row.info);
}

/** Fields of a registry entry the caller replaces (or supplies, for an unknown model). */
export type ModelInfoOverrides = Partial<ModelInfo>;

/**
 * What an unknown model is taken to be when the caller opts in (the `seed-003` preset's default, ADR-0184): a
 * 128,000-token window, 4,096 output tokens, counted with `o200k_base`. Fields the caller gives win.
 */
export const UNKNOWN_MODEL_FALLBACK: Readonly<
  Pick<ModelInfo, 'contextWindow' | 'maxOutputTokens' | 'tokenizerFamily'>
> = {
  contextWindow: 128_000,
  maxOutputTokens: 4_096,
  tokenizerFamily: 'o200k_base',
};

function providerOf(family: TokenizerFamily): ModelProvider {
  if (family === 'claude-estimate') return 'anthropic';
  if (family === 'gemini-estimate') return 'google';
  return 'openai';
}

function generationOf(family: TokenizerFamily): TokenizerGeneration {
  if (family === 'claude-estimate') return 'claude-3';
  if (family === 'gemini-estimate') return 'gemini';
  return 'openai';
}

function checkPositive(value: number | undefined, path: string): void {
  if (value !== undefined && (!Number.isInteger(value) || value <= 0)) {
    throw new ValidationError(`${path} must be a positive integer`, [{ path, message: `got ${value}` }]);
  }
}

/**
 * The registry entry with the caller's overrides applied. An unknown model is accepted only
 * when the caller supplies `contextWindow`, `maxOutputTokens` and `tokenizerFamily`.
 *
 * @param model - The model id as the caller writes it.
 * @param overrides - Fields that win over the registry's.
 * @param options - `unknownModelFallback`: an unknown model without those fields takes
 *   {@link UNKNOWN_MODEL_FALLBACK}'s (the caller opted in).
 * @returns The entry.
 * @throws ValidationError for a non-positive window or output limit, or an unknown tokenizer family.
 * @throws UnknownModelError for an unknown model without those three fields (and no fallback).
 */
export function resolveModelInfo(
  model: string,
  overrides: ModelInfoOverrides = {},
  options: { unknownModelFallback?: boolean } = {},
): ModelInfo {
  checkPositive(overrides.contextWindow, 'contextWindow');
  checkPositive(overrides.maxOutputTokens, 'maxOutputTokens');
  if (overrides.tokenizerFamily !== undefined && !tokenizerFamilies.includes(overrides.tokenizerFamily)) {
    throw new ValidationError(`unknown tokenizer family "${overrides.tokenizerFamily}"`, [
      { path: 'tokenizerFamily', message: `expected one of ${tokenizerFamilies.join(', ')}` },
    ]);
  }
  const known = findModelInfo(model);
  if (known) return { ...known, ...definedOnly(overrides) };
  const { contextWindow, maxOutputTokens, tokenizerFamily } = options.unknownModelFallback
    ? { ...UNKNOWN_MODEL_FALLBACK, ...definedOnly(overrides) }
    : overrides;
  if (contextWindow === undefined || maxOutputTokens === undefined || tokenizerFamily === undefined) {
    throw new UnknownModelError(model);
  }
  return {
    id: overrides.id ?? model,
    provider: overrides.provider ?? providerOf(tokenizerFamily),
    contextWindow,
    maxOutputTokens,
    tokenizerFamily,
    tokenizerGeneration: overrides.tokenizerGeneration ?? generationOf(tokenizerFamily),
  };
}

function definedOnly(overrides: ModelInfoOverrides): ModelInfoOverrides {
  return Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== undefined));
}
