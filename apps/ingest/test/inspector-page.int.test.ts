import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspectorIsBuilt } from '@compactor/inspector';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildIngestApp } from '../src/index.js';
import { listenOnLoopback, startTestIngest, type TestIngest } from './support.js';

let ingest: TestIngest;
beforeEach(async () => {
  ingest = await startTestIngest();
});
afterEach(async () => {
  await ingest.cleanup();
});

describe('the inspector page at /ui', () => {
  it.skipIf(!inspectorIsBuilt())(
    'serves the built page without a key (it holds no data), assets cached',
    async () => {
      const { host, port } = await listenOnLoopback(ingest.app);
      const base = `http://${host}:${port}`;
      const redirect = await fetch(`${base}/ui`, { redirect: 'manual' });
      expect(redirect.status).toBe(302);
      expect(redirect.headers.get('location')).toBe('/ui/');
      const page = await fetch(`${base}/ui/`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toContain('text/html');
      expect(page.headers.get('cache-control')).toBe('no-cache');
      const html = await page.text();
      const script = /src="(\/ui\/assets\/[^"]+\.js)"/.exec(html)?.[1];
      expect(script).toBeDefined();
      const asset = await fetch(`${base}${script}`);
      expect(asset.status).toBe(200);
      expect(asset.headers.get('cache-control')).toContain('immutable');
      // The page is public; the API behind it is not.
      expect((await fetch(`${base}/v1/threads`)).status).toBe(401);
    },
  );

  it('answers 503 with the build command when the page is not built', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'compactor-no-ui-'));
    const app = buildIngestApp({ ...ingest.dependencies, inspectorDirectory: empty });
    try {
      const response = await app.inject({ method: 'GET', url: '/ui/' });
      expect(response.statusCode).toBe(503);
      expect(response.body).toContain('pnpm --filter @compactor/inspector build');
    } finally {
      await app.close();
      await rm(empty, { recursive: true, force: true });
    }
  });

  it('is left out of the OpenAPI document', async () => {
    const document = (await ingest.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(Object.keys(document.paths).filter((path) => path.startsWith('/ui'))).toEqual([]);
  });
});
