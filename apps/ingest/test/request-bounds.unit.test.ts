import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { errorResponse } from '../src/errors/error-response.js';
import { exceedsJsonDepth } from '../src/http/json-depth.js';
import { defaultIngestTimeouts, loadIngestConfig } from '../src/index.js';
import { queryInteger } from '../src/schemas/query-integer.js';

describe('queryInteger', () => {
  const limit = queryInteger({ min: 1, max: 1000 });

  it('accepts exactly the plain decimal spellings of integers in range', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ maxLength: 6 }), fc.integer({ min: -5, max: 1005 }).map(String)),
        (text) => {
          const parsed = limit.safeParse(text);
          const plain = /^(?:0|[1-9]\d*)$/.test(text) && Number(text) >= 1 && Number(text) <= 1000;
          expect(parsed.success).toBe(plain);
          if (parsed.success) expect(parsed.data).toBe(Number(text));
        },
      ),
    );
  });
});

describe('exceedsJsonDepth', () => {
  it('counts objects and arrays, not scalars, at any depth without recursion', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 20_000 }), fc.integer({ min: 1, max: 100 }), (depth, limit) => {
        const value = JSON.parse(`${'['.repeat(depth)}1${']'.repeat(depth)}`);
        expect(exceedsJsonDepth(value, limit)).toBe(depth > limit);
      }),
      { numRuns: 200 },
    );
  });
});

describe('storage faults in the error envelope', () => {
  it.each(['ENOSPC', 'EDQUOT', 'EROFS'])(
    '%s, even as a cause, is a 503 with Retry-After and no path',
    (code) => {
      const fault = Object.assign(new Error(`${code}: cannot write '/var/lib/compactor/events/t/a.log'`), {
        code,
      });
      const wrapped = new Error('append failed', { cause: fault });
      for (const error of [fault, wrapped]) {
        const response = errorResponse(error);
        expect(response.status).toBe(503);
        expect(response.headers['retry-after']).toMatch(/^\d+$/);
        expect(response.body.error.code).toBe('unavailable');
        expect(response.body.error.message).not.toContain('/var/lib');
      }
    },
  );

  it('other fs errors stay a 500 without details', () => {
    const response = errorResponse(Object.assign(new Error("EACCES: open '/etc/x'"), { code: 'EACCES' }));
    expect(response.status).toBe(500);
    expect(response.body).toEqual({ error: { code: 'internal', message: 'internal server error' } });
  });
});

describe('timeouts in the ingest configuration', () => {
  it('default to defaultIngestTimeouts and are read from the environment', () => {
    expect(loadIngestConfig({ COMPACTOR_API_KEYS: 'k=t' }).timeouts).toEqual(defaultIngestTimeouts);
    const config = loadIngestConfig({
      COMPACTOR_API_KEYS: 'k=t',
      COMPACTOR_REQUEST_TIMEOUT_MS: '20000',
      COMPACTOR_HEADERS_TIMEOUT_MS: '5000',
      COMPACTOR_KEEP_ALIVE_TIMEOUT_MS: '1000',
    });
    expect(config.timeouts).toMatchObject({ requestMs: 20_000, headersMs: 5_000, keepAliveMs: 1_000 });
  });

  it('refuses a headers timeout longer than the request timeout, naming the variable', () => {
    expect(() =>
      loadIngestConfig({
        COMPACTOR_API_KEYS: 'k=t',
        COMPACTOR_REQUEST_TIMEOUT_MS: '1000',
        COMPACTOR_HEADERS_TIMEOUT_MS: '2000',
      }),
    ).toThrow(
      expect.objectContaining({
        issues: [expect.objectContaining({ path: 'COMPACTOR_HEADERS_TIMEOUT_MS' })],
      }),
    );
  });
});
