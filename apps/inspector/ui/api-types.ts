/** The shapes the page reads from the API (a subset of the server's, kept to what is shown). */

export interface MessagePart {
  type: string;
  text?: string;
  id?: string;
  name?: string;
  input?: unknown;
  toolCallId?: string;
  toolName?: string;
  content?: unknown;
  outcome?: string;
}

export interface StoredEvent {
  seq: number;
  eventId: string;
  type: string;
  timestamp: string;
  tokens?: number;
  message?: { id: string; role: string; content: MessagePart[] | string };
}

export interface LifecycleEvent {
  name: string;
  at: string;
  tokensBefore?: number;
  tokensAfter?: number;
  tokensFreed?: number;
  strategy?: string;
  spanMessageIds?: string[];
  details?: Record<string, unknown>;
}
