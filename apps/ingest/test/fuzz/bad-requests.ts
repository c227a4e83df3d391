import fc from 'fast-check';

/**
 * Generators of requests the ingest must refuse: every one is wrong in at least one way the API
 * documents (schema, id length, integer syntax, depth, media type, JSON syntax, auth, route,
 * version, HTTP framing), so a correct server answers each with a 4xx and writes nothing.
 */
export interface BadRequest {
  kind: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** Bytes sent as they are over a fresh socket, for what an HTTP client would refuse to send. */
  raw?: string;
}

export interface FuzzTarget {
  /** A thread that exists, with message ids m1..m3. */
  threadId: string;
  key: string;
}

const ROLES = ['system', 'user', 'assistant', 'tool'];
const EVENT_TYPES = ['message.appended', 'thread.created', 'thread.branched', 'plan.committed', 'lifecycle'];
const VERSION_TAG = /^\s*(?:W\/)?(?:"(\d{1,15})"|(\d{1,15}))\s*$/;
const DECIMAL_INTEGER = /^(?:0|[1-9]\d{0,14})$/;

const id = fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,15}$/);
/** Printable ASCII: what a header value may carry. */
const headerText = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)),
});
const tooLongId = fc.integer({ min: 201, max: 2_000 }).map((length) => 'i'.repeat(length));
const notAString = fc.oneof(
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.integer(), { minLength: 1, maxLength: 2 }),
  fc.object({ maxDepth: 1 }),
);
const notAnInteger = fc.oneof(
  fc.double({ noInteger: true }),
  fc.integer({ max: 0 }),
  fc.string({ maxLength: 5 }),
  fc.constant(null),
  fc.boolean(),
);

const validEvent = fc.record({
  eventId: id,
  type: fc.constant('message.appended'),
  message: fc.record({
    id,
    role: fc.constant('user'),
    content: fc.constant([{ type: 'text', text: 'hello' }]),
  }),
});

type Event = Record<string, unknown> & { message: Record<string, unknown> };

/** One change that makes a valid event invalid, whatever else it holds. */
const eventMutation: fc.Arbitrary<(event: Event) => unknown> = fc.oneof(
  fc
    .oneof(fc.constant(''), tooLongId, notAString)
    .map((value) => (event: Event) => ({ ...event, eventId: value })),
  fc
    .string()
    .filter((type) => !EVENT_TYPES.includes(type))
    .map((type) => (event: Event) => ({ ...event, type })),
  fc
    .oneof(fc.constant(''), tooLongId, notAString)
    .map((value) => (event: Event) => ({ ...event, message: { ...event.message, id: value } })),
  fc
    .string()
    .filter((role) => !ROLES.includes(role))
    .map((role) => (event: Event) => ({ ...event, message: { ...event.message, role } })),
  fc
    .oneof(
      fc.constant([]),
      fc.string(),
      fc.integer(),
      fc.constant([{ type: 'video' }]),
      fc.constant([{ type: 'text', text: 7 }]),
    )
    .map((content) => (event: Event) => ({ ...event, message: { ...event.message, content } })),
  fc
    .oneof(fc.integer(), fc.string(), fc.constant(null), fc.array(fc.integer(), { maxLength: 2 }))
    .map((message) => (event: Event) => ({ ...event, message })),
  fc.constantFrom('eventId', 'type', 'message').map((field) => (event: Event) => {
    const { [field]: _removed, ...rest } = event;
    return rest;
  }),
  fc
    .string({ maxLength: 20 })
    .filter((timestamp) => !/^\d{4}-/.test(timestamp))
    .map((timestamp) => (event: Event) => ({ ...event, timestamp })),
  fc
    .oneof(fc.integer({ max: -1 }), fc.double({ noInteger: true, noNaN: true }))
    .map((tokens) => (event: Event) => ({ ...event, tokens })),
  fc
    .constantFrom('thread.created', 'plan.committed', 'lifecycle')
    .map((type) => (event: Event) => ({ ...event, type })),
  fc.constantFrom('tool_call', 'tool_result').map((part) => (event: Event) => ({
    ...event,
    message: {
      ...event.message,
      role: part === 'tool_call' ? 'assistant' : 'tool',
      content: [
        part === 'tool_call'
          ? { type: 'tool_call', id: 'c'.repeat(201), name: 'read', input: {} }
          : {
              type: 'tool_result',
              toolName: 'read',
              toolCallId: 'c'.repeat(201),
              outcome: 'success',
              content: 'x',
            },
      ],
    },
  })),
);

/** 1-3 events, one of them broken, with event ids unique in the batch. */
const badBatch = fc
  .tuple(fc.array(validEvent, { minLength: 0, maxLength: 2 }), validEvent, eventMutation, fc.nat())
  .map(([others, victim, mutate, at]) => {
    const events: unknown[] = others.map((event, index) => ({
      ...event,
      eventId: `${event.eventId}-${index}`,
    }));
    events.splice(
      at % (events.length + 1),
      0,
      mutate({ ...victim, eventId: `${victim.eventId}-x` } as Event),
    );
    return events;
  });

const goodBatch = fc
  .array(validEvent, { minLength: 1, maxLength: 3 })
  .map((events) => events.map((event, index) => ({ ...event, eventId: `${event.eventId}-${index}` })));

function json(
  target: FuzzTarget,
  method: string,
  path: string,
  body: unknown,
  kind: string,
  extra: Record<string, string> = {},
): BadRequest {
  return {
    kind,
    method,
    path,
    headers: { authorization: `Bearer ${target.key}`, 'content-type': 'application/json', ...extra },
    body: JSON.stringify(body),
  };
}

function nestedJson(depth: number): string {
  return `${'['.repeat(depth)}1${']'.repeat(depth)}`;
}

export function badRequests(target: FuzzTarget): fc.Arbitrary<BadRequest> {
  const events = `/v1/threads/${target.threadId}/events`;
  const auth = { authorization: `Bearer ${target.key}` };
  return fc.oneof(
    // Schema: a batch with one bad event, or a bad envelope around good events.
    {
      weight: 8,
      arbitrary: badBatch.map((batch) => json(target, 'POST', events, { events: batch }, 'bad event')),
    },
    {
      weight: 2,
      arbitrary: fc
        .oneof(
          fc
            .jsonValue({ maxDepth: 2 })
            .filter(
              (value) =>
                value === null || typeof value !== 'object' || Array.isArray(value) || !('events' in value),
            ),
          fc
            .tuple(
              goodBatch,
              fc.string({ minLength: 1 }).filter((key) => key !== 'events'),
              fc.jsonValue({ maxDepth: 2 }),
            )
            .map(([batch, key, value]) => ({
              events: batch,
              [key]: value,
            })),
          fc.constant({ events: [] }),
          notAString.map((value) => ({ events: value })),
        )
        .map((body) => json(target, 'POST', events, body, 'bad batch envelope')),
    },
    // Headers: a version that cannot be read, or is not the thread's; auth.
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          goodBatch,
          headerText.filter((tag) => !VERSION_TAG.test(tag) && tag.trim() !== ''),
        )
        .map(([batch, tag]) =>
          json(target, 'POST', events, { events: batch }, 'unreadable If-Match', { 'if-match': tag }),
        ),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(goodBatch, fc.integer({ min: 1_000, max: 1_000_000 }))
        .map(([batch, version]) =>
          json(target, 'POST', events, { events: batch }, 'stale If-Match', { 'if-match': `"${version}"` }),
        ),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          goodBatch,
          fc.oneof(
            fc.constant(undefined),
            headerText.filter((key) => key.trim() !== '' && !key.includes('key-tenant')),
          ),
        )
        .map(([batch, key]) => ({
          kind: 'no or unknown key',
          method: 'POST',
          path: events,
          headers: {
            'content-type': 'application/json',
            ...(key === undefined ? {} : { authorization: `Bearer ${key}` }),
          },
          body: JSON.stringify({ events: batch }),
        })),
    },
    // Body syntax: truncated JSON, nesting past the limit, other media types.
    {
      weight: 2,
      arbitrary: fc
        .tuple(goodBatch, fc.nat())
        .map(([batch, cut]) => {
          const text = JSON.stringify({ events: batch });
          return text.slice(0, 1 + (cut % (text.length - 1)));
        })
        .filter((text) => {
          try {
            JSON.parse(text);
            return false;
          } catch {
            return true;
          }
        })
        .map((body) => ({
          kind: 'truncated JSON',
          method: 'POST',
          path: events,
          headers: { ...auth, 'content-type': 'application/json' },
          body,
        })),
    },
    {
      weight: 1,
      arbitrary: fc.integer({ min: 65, max: 6_000 }).map((depth) => ({
        kind: 'deep JSON',
        method: 'POST',
        path: events,
        headers: { ...auth, 'content-type': 'application/json' },
        body: `{"events":[{"eventId":"d","type":"message.appended","message":{"id":"d","role":"assistant","content":[{"type":"tool_call","id":"c","name":"x","input":${nestedJson(depth)}}]}}]}`,
      })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          goodBatch,
          fc.constantFrom(
            'text/plain',
            'application/xml',
            'application/octet-stream',
            'application/x-www-form-urlencoded',
            'image/png',
          ),
        )
        .map(([batch, type]) => ({
          kind: 'other media type',
          method: 'POST',
          path: events,
          headers: { ...auth, 'content-type': type },
          body: JSON.stringify({ events: batch }),
        })),
    },
    // Query strings: integers that are not plain decimal, out of range, or unknown parameters.
    {
      weight: 2,
      arbitrary: fc
        .record({
          name: fc.constantFrom('limit', 'fromSeq'),
          value: fc.oneof(
            fc.string({ maxLength: 8 }).filter((value) => !DECIMAL_INTEGER.test(value) || value === '0'),
            fc.constantFrom('1e3', '0x10', '12.0', '-1', '+5', '0b11', 'Infinity', '1001'),
          ),
        })
        .map(({ name, value }) => ({
          kind: 'bad query integer',
          method: 'GET',
          path: `${events}?${name}=${encodeURIComponent(value)}`,
          headers: auth,
        }))
        .filter(
          (request) =>
            !/limit=(?:[1-9]\d{0,2}|1000)$/.test(request.path) &&
            !/fromSeq=[1-9]\d{0,14}$/.test(request.path),
        ),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc
            .stringMatching(/^[a-z]{1,8}$/)
            .filter((name) => !['limit', 'fromseq'].includes(name.toLowerCase())),
          fc.string({ maxLength: 8 }),
        )
        .map(([name, value]) => ({
          kind: 'unknown query parameter',
          method: 'GET',
          path: `${events}?${name}=${encodeURIComponent(value)}`,
          headers: auth,
        })),
    },
    // Other routes' bodies.
    {
      weight: 2,
      arbitrary: fc
        .oneof(
          fc.record({
            provider: fc
              .string()
              .filter((name) => !['anthropic', 'openai-chat', 'openai-responses', 'ai-sdk'].includes(name)),
          }),
          fc.record({ budget: notAnInteger }),
          fc.record({ system: notAString }),
          fc.record({
            tools: fc.oneof(
              notAString,
              fc.constant([{ name: '' }]),
              fc.constant([{ name: 'x', inputSchema: 3 }]),
            ),
          }),
          fc.record({ budget: fc.integer({ min: 10_000_000, max: 2 ** 40 }) }),
          fc.record({ unknownField: fc.jsonValue({ maxDepth: 2 }) }),
        )
        .map((body) =>
          json(target, 'POST', `/v1/threads/${target.threadId}/prompt`, body, 'bad prompt body'),
        ),
    },
    {
      weight: 1,
      arbitrary: fc
        .oneof(
          fc.record({ model: notAString }),
          fc.record({
            model: fc.constant('claude-sonnet-4-5'),
            threadId: fc.oneof(
              fc.stringMatching(/^[a-z]{1,5}[/ ?#%][a-z]{1,5}$/),
              fc.constant('t'.repeat(129)),
            ),
          }),
          fc.record({ model: fc.constant('claude-sonnet-4-5'), contextWindow: notAnInteger }),
          fc.record({ model: fc.constant('claude-sonnet-4-5'), surprise: fc.jsonValue({ maxDepth: 2 }) }),
        )
        .map((body) => json(target, 'POST', '/v1/threads', body, 'bad create body')),
    },
    {
      weight: 1,
      arbitrary: fc
        .oneof(
          fc.record({ instructions: fc.oneof(fc.constant(''), fc.integer(), fc.boolean()) }),
          fc.record({ force: fc.oneof(fc.string(), fc.integer(), fc.constant(null)) }),
          fc.record({ other: fc.jsonValue({ maxDepth: 2 }) }),
        )
        .map((body) =>
          json(target, 'POST', `/v1/threads/${target.threadId}/compact`, body, 'bad compact body'),
        ),
    },
    {
      weight: 1,
      arbitrary: fc
        .oneof(
          fc.record({ fromMessageId: notAString }),
          fc.record({ fromMessageId: fc.constant('m1'), newThreadId: fc.constant('bad id!') }),
        )
        .map((body) =>
          json(target, 'POST', `/v1/threads/${target.threadId}/branch`, body, 'bad branch body'),
        ),
    },
    // Routes and ids that do not exist.
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH'),
          fc.stringMatching(/^[a-z0-9-]{1,20}$/),
          fc.constantFrom('', '/events', '/plan', '/prompt', '/nothing', '/x/y'),
        )
        .filter(([, threadId]) => threadId !== target.threadId)
        .map(([method, threadId, suffix]) => ({
          kind: 'unknown thread or route',
          method,
          path: `/v1/threads/${threadId}${suffix}`,
          headers: { ...auth, ...(method === 'GET' ? {} : { 'content-type': 'application/json' }) },
          ...(method === 'GET'
            ? {}
            : {
                body: JSON.stringify({
                  events: [
                    {
                      eventId: 'e',
                      type: 'message.appended',
                      message: { id: 'm', role: 'user', content: [{ type: 'text', text: 'x' }] },
                    },
                  ],
                }),
              }),
        })),
    },
    {
      weight: 1,
      arbitrary: fc
        .oneof(
          fc.stringMatching(/^[A-Za-z0-9_-]{1,80}$/),
          fc.stringMatching(/^[0-9a-f]{64}$/).map((hex) => `art_${hex}`),
        )
        .map((artifactId) => ({
          kind: 'bad or unknown artifact id',
          method: 'GET',
          path: `/v1/artifacts/${artifactId}`,
          headers: auth,
        })),
    },
    {
      weight: 1,
      arbitrary: fc
        .stringMatching(/^[a-z0-9/_-]{0,40}$/)
        .map((rest) => ({ kind: 'unknown route', method: 'GET', path: `/v9/${rest}`, headers: auth })),
    },
    // HTTP framing, over a raw socket: what the router, the parser and Node refuse.
    {
      weight: 2,
      arbitrary: fc
        .oneof(
          fc
            .constantFrom('%E0%A4%A', '%', '%zz', '%C3%28')
            .map(
              (bad) =>
                `GET /v1/threads/${bad}/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${target.key}\r\nConnection: close\r\n\r\n`,
            ),
          fc
            .integer({ min: 129, max: 4_000 })
            .map(
              (length) =>
                `GET /v1/threads/${'a'.repeat(length)}/plan HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${target.key}\r\nConnection: close\r\n\r\n`,
            ),
          fc
            .integer({ min: 17_000, max: 40_000 })
            .map(
              (length) =>
                `GET ${events} HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(length)}\r\nConnection: close\r\n\r\n`,
            ),
          fc
            .string({
              minLength: 1,
              maxLength: 30,
              unit: fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code)),
            })
            .map((junk) => `${junk} \x00\r\n\r\n`),
          fc.constant(
            `POST ${events} HTTP/1.1\r\nHost: x\r\nContent-Length: 1x\r\nConnection: close\r\n\r\n{}`,
          ),
        )
        .map((raw) => ({ kind: 'bad HTTP framing', method: 'RAW', path: '', headers: {}, raw })),
    },
  );
}
