import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Send `request` bytes as they are (no client library normalizes them) and read the answer until
 * the server closes the connection; the request should say `Connection: close`.
 */
export function rawRequest(port: number, request: string | Buffer, timeoutMs = 10_000): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete answer within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const head = split === -1 ? text : text.slice(0, split);
      const [statusLine = '', ...headerLines] = head.split('\r\n');
      const status = Number(statusLine.split(' ')[1]);
      const headers = Object.fromEntries(
        headerLines.map((line) => {
          const colon = line.indexOf(':');
          return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()];
        }),
      );
      let body = split === -1 ? '' : text.slice(split + 4);
      if (headers['transfer-encoding'] === 'chunked') body = dechunk(body);
      resolve({ status, headers, body });
    });
    socket.write(request);
  });
}

function dechunk(body: string): string {
  let result = '';
  let rest = body;
  while (rest.length > 0) {
    const lineEnd = rest.indexOf('\r\n');
    const size = Number.parseInt(rest.slice(0, lineEnd), 16);
    if (!size) break;
    result += rest.slice(lineEnd + 2, lineEnd + 2 + size);
    rest = rest.slice(lineEnd + 2 + size + 2);
  }
  return result;
}

/** An HTTP/1.1 request with `Connection: close` and, when given, a body with its length. */
export function httpRequest(
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): string {
  const lines = [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close'];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  if (body !== undefined) lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  return `${lines.join('\r\n')}\r\n\r\n${body ?? ''}`;
}
