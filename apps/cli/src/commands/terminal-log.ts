import { Writable } from 'node:stream';

const LEVEL_NAMES: Record<number, string> = {
  10: 'trace',
  20: 'debug',
  30: 'info',
  40: 'warn',
  50: 'error',
  60: 'fatal',
};
/** Fastify logs two lines per request at info; on a terminal they drown the banner. */
const PER_REQUEST_MESSAGES = new Set(['incoming request', 'request completed']);
const OMITTED_FIELDS = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'name', 'reqId', 'req', 'res']);

/**
 * A pino destination for a person at a terminal: `HH:MM:SS level message key=value`, with the
 * per-request lines left out below warn. Files and pipes keep the JSON lines (machines read them).
 */
export function terminalLogDestination(output: NodeJS.WritableStream = process.stderr): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) {
        const formatted = line.trim() === '' ? null : formatLogLine(line);
        if (formatted) output.write(`${formatted}\n`);
      }
      done();
    },
  });
}

/** One pino JSON line as a short human line, or null when it is a routine per-request line. */
export function formatLogLine(line: string): string | null {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line);
  } catch {
    return line;
  }
  const level = typeof entry.level === 'number' ? entry.level : 30;
  if (level < 40 && PER_REQUEST_MESSAGES.has(String(entry.msg))) return null;
  const time = typeof entry.time === 'number' ? new Date(entry.time).toISOString().slice(11, 19) : '';
  const fields = Object.entries(entry)
    .filter(([key]) => !OMITTED_FIELDS.has(key))
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  const levelName = (LEVEL_NAMES[level] ?? String(level)).padEnd(5);
  return [time, levelName, String(entry.msg ?? ''), ...fields].filter((part) => part !== '').join(' ');
}
