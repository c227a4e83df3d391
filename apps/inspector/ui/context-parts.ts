/** One segment of the context bar. */
export interface ContextPart {
  key: string;
  label: string;
  tokens: number;
  color: string;
}

export interface RenderedTokens {
  system: number;
  tools: number;
  formatting: number;
  messages: number;
  /** Of `messages`, the summaries (older renders may lack it). */
  summary?: number;
  rehydration: number;
  /** Render-time recall (older renders may lack it). */
  recall?: number;
  total: number;
}

/**
 * The context window split the way the rendered request uses it, from the render report's own
 * numbers: what was sent (system, tools, formatting, summary, the rest of the conversation, recall and
 * rehydrated artifacts), the room
 * left under the ceiling, and what lies above the ceiling (the output reserve and safety buffer,
 * or whatever a smaller budget leaves unused). The parts add up to the window exactly.
 */
export function contextParts(tokens: RenderedTokens, ceiling: number, contextWindow: number): ContextPart[] {
  const summary = Math.min(tokens.summary ?? 0, tokens.messages);
  const recalled = tokens.rehydration + (tokens.recall ?? 0);
  const sent = tokens.system + tokens.tools + tokens.formatting + tokens.messages + recalled;
  // Formatting is whatever the total holds beyond the named parts, so the sent parts sum to it.
  const formatting = tokens.formatting + (tokens.total - sent);
  return [
    { key: 'system', label: 'System prompt', tokens: tokens.system, color: '#1f5fa8' },
    { key: 'tools', label: 'Tools', tokens: tokens.tools, color: '#7b3fa0' },
    { key: 'formatting', label: 'Formatting', tokens: formatting, color: '#5c6670' },
    { key: 'summary', label: 'Summary', tokens: summary, color: '#8a6d00' },
    {
      key: 'conversation',
      label: 'Conversation (verbatim messages and other stand-ins)',
      tokens: tokens.messages - summary,
      color: '#0f7b5f',
    },
    { key: 'rehydration', label: 'Recall / rehydration', tokens: recalled, color: '#b25b00' },
    {
      key: 'free',
      label: 'Free room under the ceiling',
      tokens: Math.max(0, ceiling - tokens.total),
      color: '#d9dee3',
    },
    {
      key: 'reserve',
      label: 'Output reserve and safety buffer',
      tokens: Math.max(0, contextWindow - Math.max(ceiling, tokens.total)),
      color: '#a3acb5',
    },
  ];
}
