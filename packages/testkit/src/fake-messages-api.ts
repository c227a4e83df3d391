/**
 * A loopback HTTP server that speaks enough of Anthropic's Messages API for tests: it records
 * every request and answers from a script (status, body, headers, delay), so retries, overload,
 * malformed output and timeouts can be exercised against the real SDK over a real socket. A
 * request with `"stream": true` answered by a scripted message gets that message as server-sent
 * events, as the API streams it (`message_start`, `content_block_start`/`_delta`/`_stop` per
 * block, `message_delta`, `message_stop`), optionally cut off after a number of events.
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
  /**
   * Streaming requests only: stop after this many events, before the message is complete: the
   * connection is dropped (`cutAs: 'drop'`, the default) or the response ends cleanly (`'end'`: a
   * stream that just stops, with no error and no `message_stop`).
   */
  cutAfterEvents?: number;
  cutAs?: 'drop' | 'end';
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
        if (isStreamingRequest(body) && scripted.status === 200 && isMessage(scripted.body)) {
          sendEvents(response, messageStreamEvents(scripted.body), scripted);
          return;
        }
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

/** One server-sent event of the Messages API stream. */
export interface StreamEvent {
  event: string;
  data: Record<string, unknown>;
}

interface MessageBody {
  type: 'message';
  content: Array<Record<string, unknown> & { type: string }>;
  stop_reason?: unknown;
  stop_sequence?: unknown;
  usage?: { output_tokens?: number } & Record<string, unknown>;
  [field: string]: unknown;
}

function isStreamingRequest(body: unknown): boolean {
  return typeof body === 'object' && body !== null && (body as { stream?: unknown }).stream === true;
}

function isMessage(body: unknown): body is MessageBody {
  return (
    typeof body === 'object' &&
    body !== null &&
    (body as { type?: unknown }).type === 'message' &&
    Array.isArray((body as { content?: unknown }).content)
  );
}

/** `text` in pieces of at most `size` characters (at least one piece). */
function pieces(text: string, size: number): string[] {
  if (text.length === 0) return [''];
  const out: string[] = [];
  for (let start = 0; start < text.length; start += size) out.push(text.slice(start, start + size));
  return out;
}

/**
 * A complete message as the Messages API streams it: `message_start` (no content, stop reason
 * null), then per block `content_block_start` (empty), its deltas (`text_delta` and
 * `input_json_delta` in pieces, `thinking_delta` and `signature_delta`, one `compaction_delta`) and
 * `content_block_stop`, then `message_delta` (stop reason, output tokens) and `message_stop`; a `ping` after the start.
 *
 * @param message - The message the stream assembles to.
 * @returns The events, in order.
 */
export function messageStreamEvents(message: MessageBody): StreamEvent[] {
  const { content, stop_reason, stop_sequence, usage, ...rest } = message;
  const events: StreamEvent[] = [
    {
      event: 'message_start',
      data: {
        type: 'message_start',
        message: {
          ...rest,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { ...usage, output_tokens: 1 },
        },
      },
    },
    { event: 'ping', data: { type: 'ping' } },
  ];
  content.forEach((block, index) => {
    const delta = (payload: Record<string, unknown>) =>
      events.push({
        event: 'content_block_delta',
        data: { type: 'content_block_delta', index, delta: payload },
      });
    const start = (content_block: Record<string, unknown>) =>
      events.push({
        event: 'content_block_start',
        data: { type: 'content_block_start', index, content_block },
      });
    if (block.type === 'text') {
      start({ ...block, text: '' });
      for (const text of pieces(String(block.text), 7)) delta({ type: 'text_delta', text });
    } else if (block.type === 'tool_use') {
      start({ ...block, input: {} });
      for (const partial_json of pieces(JSON.stringify(block.input ?? {}), 5))
        delta({ type: 'input_json_delta', partial_json });
    } else if (block.type === 'thinking') {
      start({ type: 'thinking', thinking: '', signature: '' });
      for (const thinking of pieces(String(block.thinking), 9)) delta({ type: 'thinking_delta', thinking });
      delta({ type: 'signature_delta', signature: block.signature });
    } else if (block.type === 'compaction') {
      // The beta API's compaction block: opened empty, its final value in one `compaction_delta`.
      start({ ...block, content: null, encrypted_content: null });
      delta({
        type: 'compaction_delta',
        content: block.content ?? null,
        encrypted_content: block.encrypted_content ?? null,
      });
    } else {
      // Blocks that arrive whole (redacted thinking, server tool results).
      start(block);
    }
    events.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } });
  });
  events.push(
    {
      event: 'message_delta',
      data: {
        type: 'message_delta',
        delta: { stop_reason, stop_sequence: stop_sequence ?? null },
        usage: { output_tokens: usage?.output_tokens ?? 0 },
      },
    },
    { event: 'message_stop', data: { type: 'message_stop' } },
  );
  return events;
}

function sendEvents(
  response: ServerResponse,
  events: readonly StreamEvent[],
  scripted: ScriptedResponse,
): void {
  response.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    ...scripted.headers,
  });
  const limit = scripted.cutAfterEvents ?? events.length;
  for (const [index, event] of events.entries()) {
    if (index >= limit) {
      if (scripted.cutAs === 'end') response.end();
      // Flush what was written, then drop the connection mid-message.
      else response.socket?.end(() => response.socket?.destroy());
      return;
    }
    response.write(`event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`);
  }
  response.end();
}
