/**
 * A loopback HTTP server that speaks enough of Anthropic's Messages API for tests: it records
 * every request and answers from a script (status, body, headers, delay), so retries, overload,
 * malformed output and timeouts can be exercised against the real SDK over a real socket.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the fake server received (the body parsed as JSON when it is JSON). */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
}

/** An answer the fake server gives. */
export interface ScriptedResponse {
  status: number;
  /** Sent as JSON. */
  body?: unknown;
  /** Added to `content-type: application/json`. */
  headers?: Record<string, string>;
  /** Wait this long before answering (for timeout tests). */
  delayMs?: number;
}

/** A fixed answer, or one computed from the request. */
export type ResponseScript = ScriptedResponse | ((request: RecordedRequest) => ScriptedResponse);

/** A running fake Messages API. */
export interface FakeMessagesApi {
  /** Base URL to give the SDK (`baseURL`). */
  url: string;
  /** Every request received, in order. */
  requests: RecordedRequest[];
  /** Queue responses, answered in order; when the queue is empty the fallback answers. */
  enqueue(...responses: ResponseScript[]): void;
  /** Answer every request this way once the queue is empty. */
  setFallback(response: ResponseScript): void;
  /** Drop open connections and stop listening. */
  close(): Promise<void>;
}

/**
 * Start the fake on a free loopback port. Until scripted, it answers 500 `api_error`.
 *
 * @returns The running server.
 */
export async function startFakeMessagesApi(): Promise<FakeMessagesApi> {
  const queue: ResponseScript[] = [];
  const requests: RecordedRequest[] = [];
  let fallback: ResponseScript = {
    status: 500,
    body: { type: 'error', error: { type: 'api_error', message: 'fake server: no scripted response' } },
  };
  const sockets = new Set<import('node:net').Socket>();

  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown = raw;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        // Keep the raw text: a test may want to see a malformed request.
      }
      const recorded: RecordedRequest = {
        method: request.method ?? 'GET',
        path: request.url ?? '/',
        headers: request.headers,
        body,
      };
      requests.push(recorded);
      const script = queue.shift() ?? fallback;
      const scripted = typeof script === 'function' ? script(recorded) : script;
      const send = () => {
        if (response.destroyed) return;
        response.writeHead(scripted.status, { 'content-type': 'application/json', ...scripted.headers });
        response.end(scripted.body === undefined ? '' : JSON.stringify(scripted.body));
      };
      if (scripted.delayMs) setTimeout(send, scripted.delayMs);
      else send();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    enqueue: (...responses) => queue.push(...responses),
    setFallback: (response) => {
      fallback = response;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const socket of sockets) socket.destroy();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/**
 * A Messages API response whose content is one tool_use block.
 *
 * @param name - The tool's name.
 * @param input - The tool call's input.
 * @param usage - Input and output tokens reported.
 * @param model - The model reported.
 * @returns A 200 answer.
 */
export function toolUseResponse(
  name: string,
  input: unknown,
  usage: { input_tokens: number; output_tokens: number } = { input_tokens: 100, output_tokens: 50 },
  model = 'claude-haiku-4-5',
): ScriptedResponse {
  return {
    status: 200,
    body: {
      id: 'msg_fake',
      type: 'message',
      role: 'assistant',
      model,
      content: [{ type: 'tool_use', id: 'toolu_fake', name, input }],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { ...usage, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    },
  };
}

/**
 * A Messages API response with plain text content.
 *
 * @param text - The text.
 * @param usage - Input and output tokens reported.
 * @returns A 200 answer.
 */
export function textResponse(
  text: string,
  usage = { input_tokens: 100, output_tokens: 20 },
): ScriptedResponse {
  return {
    status: 200,
    body: {
      id: 'msg_fake',
      type: 'message',
      role: 'assistant',
      model: 'claude-haiku-4-5',
      content: [{ type: 'text', text }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { ...usage, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    },
  };
}

/**
 * An API error in Anthropic's shape (429 rate limit, 529 overloaded, 500 ...).
 *
 * @param status - The HTTP status.
 * @param type - The error type, e.g. `overloaded_error`.
 * @param headers - Extra headers, e.g. `retry-after`.
 * @returns The answer.
 */
export function errorResponse(
  status: number,
  type: string,
  headers: Record<string, string> = {},
): ScriptedResponse {
  return { status, headers, body: { type: 'error', error: { type, message: `${type} (fake)` } } };
}
