import type { ProviderName, ToolDefinition } from '../provider.js';
import type { Message } from '../schemas/message.js';

/**
 * Provider-aware token counting. `count` is the raw text count; `countMessage` adds the
 * role and formatting overhead the provider's wire format costs.
 */
export interface Tokenizer {
  /** Identifies encoding and calibration (part of cache keys). */
  readonly id: string;
  /**
   * @param text - Raw text.
   * @returns Its tokens.
   */
  count(text: string): number;
  /**
   * @param message - A message.
   * @param provider - The wire format it is sent in.
   * @returns Its tokens with role and formatting overhead.
   */
  countMessage(message: Message, provider: ProviderName): number;
  /**
   * Optional: `count(parts.join(''))`, the same number, from counts memoized per part where their sum
   * is exact, so a part shared by several texts (a recalled message and the recall block quoting it)
   * is encoded once; afterwards `count` and `countMessage` of the joined text find it counted
   * (ADR-0460). Without it callers count the joined text.
   *
   * @param parts - Texts, in order.
   * @returns Their joined text's tokens.
   */
  countJoined?(parts: readonly string[]): number;
  /**
   * @param tools - Tool definitions.
   * @param provider - The wire format they are sent in.
   * @returns Their tokens as sent.
   */
  countTools(tools: readonly ToolDefinition[], provider: ProviderName): number;
  /**
   * A whole provider request (system, tools, messages and the request's own framing such as reply
   * priming), for tokenizers that can count one. The renderer charges what an empty request costs
   * as request-level overhead; without this method it charges none.
   *
   * @param request - The request in `provider`'s format.
   * @param provider - The format.
   * @returns Its tokens.
   */
  countRequest?(request: unknown, provider: ProviderName): number;
}
