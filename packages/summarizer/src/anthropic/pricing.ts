/** USD per million tokens. Cache writes cost 1.25× input, cache reads 0.1× input (Anthropic's published rates). */
interface ModelPrice {
  input: number;
  output: number;
}

const PRICES: Array<[RegExp, ModelPrice]> = [
  [/haiku-4/, { input: 1, output: 5 }],
  [/3-5-haiku|haiku-3-5/, { input: 0.8, output: 4 }],
  [/3-haiku|haiku-3/, { input: 0.25, output: 1.25 }],
  [/sonnet/, { input: 3, output: 15 }],
  [/opus-4-5|opus-4\.5/, { input: 5, output: 25 }],
  [/opus/, { input: 15, output: 75 }],
];

/** Token usage as the Messages API reports it. */
export interface ReportedUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
}

/**
 * Cost of one call from the usage the API reported; unknown models are priced as Sonnet (over, not under).
 *
 * @param model - The model id the response named.
 * @param usage - The response's usage block.
 * @returns The cost in USD.
 */
export function costOfUsage(model: string, usage: ReportedUsage): number {
  const price = PRICES.find(([pattern]) => pattern.test(model))?.[1] ?? { input: 3, output: 15 };
  const cacheWrite = usage.cache_creation_input_tokens ?? 0;
  const cacheRead = usage.cache_read_input_tokens ?? 0;
  return (
    (usage.input_tokens * price.input +
      cacheWrite * price.input * 1.25 +
      cacheRead * price.input * 0.1 +
      usage.output_tokens * price.output) /
    1_000_000
  );
}
