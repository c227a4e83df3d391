import type { ServerResponse } from 'node:http';
import type { LifecycleEvent, LifecycleEventLog, Logger } from '@compactor/core';

export interface LifecycleStreamOptions {
  log: LifecycleEventLog;
  tenantId: string;
  threadId: string;
  /** Events at positions before this were seen already (1-based). */
  fromIndex: number;
  response: ServerResponse;
  logger: Logger;
  /** A comment line this often keeps proxies and the idle-socket deadline from closing the stream. */
  heartbeatMs: number;
  /** How often to re-read a log that cannot notify (no `subscribe`); five times slower for one that can. */
  pollMs: number;
}

/** With notices, the log is re-read this many times less often than without. */
const SUBSCRIBED_POLL_FACTOR = 5;

/**
 * Server-sent events of one thread's lifecycle log (ADR-0091). Each event is
 * `id: <index>` / `event: lifecycle` / `data: <json>`, so a reconnecting EventSource resumes after
 * the last one with `Last-Event-ID`. A notice from the log (or a poll) only wakes the stream: it
 * re-reads the log and sends what lies past the last index sent, so none is lost or doubled.
 * Returns the function that ends the stream.
 */
export function streamLifecycle(options: LifecycleStreamOptions): () => void {
  const { log, tenantId, threadId, response, logger } = options;
  let sent = options.fromIndex - 1;
  let reading = false;
  let again = false;
  let closed = false;

  const send = (chunk: string) => {
    if (!closed) response.write(chunk);
  };

  async function flush(): Promise<void> {
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    try {
      do {
        again = false;
        const events = await log.list(tenantId, threadId);
        for (let index = sent; index < events.length; index += 1) {
          send(frame(index + 1, events[index]!));
        }
        sent = Math.max(sent, events.length);
      } while (again && !closed);
    } catch (error) {
      logger.warn({ err: error, tenantId, threadId }, 'lifecycle stream could not read the log');
    } finally {
      reading = false;
    }
  }

  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  send(`retry: 2000\n: lifecycle of ${threadId}\n\n`);
  const unsubscribe = log.subscribe?.(tenantId, threadId, () => void flush());
  // A log that notifies is still re-read now and then: its notices may not cover appends made by
  // another process (the embedded log notifies within its own process only).
  const poll = setInterval(
    () => void flush(),
    unsubscribe ? options.pollMs * SUBSCRIBED_POLL_FACTOR : options.pollMs,
  );
  const heartbeat = setInterval(() => send(': keep-alive\n\n'), options.heartbeatMs);
  void flush();

  const end = () => {
    if (closed) return;
    closed = true;
    unsubscribe?.();
    clearInterval(poll);
    clearInterval(heartbeat);
    response.end();
  };
  response.on('close', end);
  return end;
}

function frame(index: number, event: LifecycleEvent): string {
  return `id: ${index}\nevent: lifecycle\ndata: ${JSON.stringify({ index, ...event })}\n\n`;
}
