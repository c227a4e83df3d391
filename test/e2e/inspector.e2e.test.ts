/**
 * The inspector page (/ui) of a real `compactor serve`, driven in headless Chromium (Debian's
 * /usr/bin/chromium through playwright-core; never a downloaded browser): sign in, open a replayed
 * thread, the context bar adds up to the rendered report, a plan diff opens, compacting with
 * instructions shows the new version and its lifecycle event arriving live, and a second tenant's
 * key sees none of it. Set COMPACTOR_SCREENSHOTS_DIR to keep screenshots of the main views.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { replayThroughServer } from '@compactor/cli';
import { INSPECTOR_BUILD_COMMAND, inspectorIsBuilt, inspectorNeedsBuild } from '@compactor/inspector';
import { corpusAvailable, corpusFile } from '@compactor/testkit/corpus';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repositoryRoot, type ServeProcess, startServe } from './serve-process.js';

const CHROMIUM = '/usr/bin/chromium';
const KEY_A = 'inspector-key-a';
const KEY_B = 'inspector-key-b';
const CORPUS_SESSION = ['claude-code', '0ccf1a04-1b4c-43b6-8aa5-79e41db43a68.jsonl'] as const;
const screenshots = process.env.COMPACTOR_SCREENSHOTS_DIR;

/** A coding-agent-like transcript, for machines without the corpus. */
async function ownTranscript(): Promise<string> {
  const messages: unknown[] = [
    { role: 'user', content: 'Fix the flaky test in src/queue.ts. Never touch the public API.' },
  ];
  for (let turn = 1; turn <= 30; turn += 1) {
    messages.push({
      role: 'assistant',
      content: `Step ${turn}: ${'reading the queue, its retries and the timer wheel. '.repeat(20)}`,
    });
    messages.push({ role: 'user', content: `Go on with step ${turn + 1}.` });
  }
  const file = join(await mkdtemp(join(tmpdir(), 'compactor-inspector-')), 'agent.json');
  await writeFile(file, JSON.stringify({ model: 'claude-sonnet-4-5', messages }));
  return file;
}

async function api(serve: ServeProcess, key: string, path: string, init: RequestInit = {}) {
  const response = await fetch(`${serve.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...init.headers },
  });
  // biome-ignore lint/suspicious/noExplicitAny: the API's JSON bodies, read field by field in assertions
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

async function shot(page: Page, name: string) {
  if (!screenshots) return;
  await mkdir(screenshots, { recursive: true });
  await page.screenshot({ path: join(screenshots, `${name}.png`), type: 'png' });
}

async function signIn(page: Page, serve: ServeProcess, key: string) {
  await page.goto(`${serve.url}/ui/`);
  await page.getByLabel('API key').fill(key);
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Threads' }).waitFor();
}

describe.skipIf(!existsSync(CHROMIUM))(
  'inspector page in headless Chromium (needs /usr/bin/chromium: apt-get install -y chromium)',
  () => {
    let serve: ServeProcess;
    let dataDir: string;
    let browser: Browser;
    let threadId: string;

    beforeAll(async () => {
      // From the current sources: a build left from before an edit would test old code.
      if (inspectorNeedsBuild()) {
        execFileSync('pnpm', INSPECTOR_BUILD_COMMAND.split(' ').slice(1), {
          cwd: repositoryRoot,
          stdio: 'ignore',
        });
      }
      expect(inspectorIsBuilt()).toBe(true);
      dataDir = await mkdtemp(join(tmpdir(), 'compactor-e2e-inspector-'));
      serve = await startServe(['--port', '0', '--data-dir', dataDir], {
        COMPACTOR_API_KEYS: `${KEY_A}=tenant-a,${KEY_B}=tenant-b`,
        COMPACTOR_DEBOUNCE_MS: '50',
        COMPACTOR_MAX_BODY_BYTES: String(4 * 1024 * 1024),
      });
      const transcript = corpusAvailable(...CORPUS_SESSION)
        ? corpusFile(...CORPUS_SESSION)
        : await ownTranscript();
      const replay = await replayThroughServer(transcript, {
        format: 'auto',
        window: 16_000,
        server: serve.url,
        apiKey: KEY_A,
      });
      threadId = replay.report.threadId;
      // A plan to diff even where the replay's own checks found nothing to compact (a short transcript).
      if (replay.report.compactions === 0) {
        const forced = await api(serve, KEY_A, `/v1/threads/${threadId}/compact`, {
          method: 'POST',
          body: JSON.stringify({ force: true }),
        });
        expect(forced.body.status).toBe('committed');
      }
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
      });
    });

    afterAll(async () => {
      await browser?.close();
      if (serve) expect(await serve.stop()).toBe(0);
      await rm(dataDir, { recursive: true, force: true });
    });

    it('signs in, opens the replayed thread, and the context bar adds up to the rendered report', async () => {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await signIn(page, serve, KEY_A);
      const row = page.locator(`tr[data-thread="${threadId}"]`);
      await row.waitFor();
      await shot(page, 'threads');
      await row.getByRole('link', { name: threadId }).click();
      await page.getByTestId('context-parts').waitFor();

      const rendered = await api(serve, KEY_A, `/v1/threads/${threadId}/prompt`, {
        method: 'POST',
        body: JSON.stringify({ provider: 'anthropic' }),
      });
      const { tokens, report } = rendered.body;
      const shown = async (part: string) =>
        Number(await page.locator(`tr[data-part="${part}"] td`).getAttribute('data-tokens'));
      const thread = (await api(serve, KEY_A, `/v1/threads/${threadId}`)).body;
      expect(await shown('system')).toBe(tokens.system);
      expect(await shown('tools')).toBe(tokens.tools);
      expect(await shown('summary')).toBe(tokens.summary);
      expect(await shown('conversation')).toBe(tokens.messages - tokens.summary);
      expect(await shown('rehydration')).toBe(tokens.rehydration + tokens.recall);
      expect(await shown('formatting')).toBe(
        tokens.total - tokens.system - tokens.tools - tokens.messages - tokens.rehydration - tokens.recall,
      );
      expect(await shown('free')).toBe(report.ceiling - tokens.total);
      expect(await shown('reserve')).toBe(thread.contextWindow - report.ceiling);
      const parts = [
        'system',
        'tools',
        'formatting',
        'summary',
        'conversation',
        'rehydration',
        'free',
        'reserve',
      ];
      let sum = 0;
      for (const part of parts) sum += await shown(part);
      expect(sum).toBe(thread.contextWindow);
      expect(await page.getByTestId('ceiling').textContent()).toBe(String(report.ceiling));
      await shot(page, 'thread');
      await page.close();
    });

    it('opens a plan diff, then compacts with instructions and sees the new version and its event arrive live', async () => {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await signIn(page, serve, KEY_A);
      await page.goto(`${serve.url}/ui/#/threads/${encodeURIComponent(threadId)}`);
      await page.getByTestId('context-parts').waitFor();
      const before = Number(await page.getByTestId('plan-version').textContent());
      expect(before).toBeGreaterThan(0);

      await page.getByRole('button', { name: `v${before}`, exact: true }).click();
      const diff = page.getByTestId('plan-diff');
      await diff.waitFor();
      expect(await diff.locator('tbody tr').count()).toBeGreaterThan(0);
      await diff.scrollIntoViewIfNeeded();
      await shot(page, 'plan-diff');

      await expect.poll(() => page.getByTestId('stream-state').textContent()).toBe('live');
      const eventsBefore = await page.locator('ol.lifecycle li').count();
      await page
        .getByLabel('Instructions for this compaction (optional)')
        .fill('Keep every file path the user named.');
      await page.getByRole('button', { name: 'Compact now' }).click();
      await expect
        .poll(() => page.getByTestId('notice').textContent(), { timeout: 30_000 })
        .toMatch(/Committed plan v\d+/);
      await expect
        .poll(() => page.getByTestId('plan-version').textContent(), { timeout: 15_000 })
        .toBe(String(before + 1));
      // The new version's diff says a person asked for it.
      await page.getByRole('button', { name: `v${before + 1}`, exact: true }).click();
      await expect
        .poll(() => page.getByTestId('plan-trigger').textContent(), { timeout: 15_000 })
        .toMatch(/^manual/);
      // The compaction's lifecycle events came over the stream (the feed is never reloaded).
      await page.locator('ol.lifecycle li[data-event="compaction_completed"]').first().waitFor();
      expect(await page.locator('ol.lifecycle li').count()).toBeGreaterThan(eventsBefore);
      const stored = (await api(serve, KEY_A, `/v1/threads/${threadId}/lifecycle?limit=1000`)).body;
      const newest = await page.locator('ol.lifecycle li').first().getAttribute('data-index');
      expect(Number(newest)).toBe(stored.total);
      // The summary marks exactly the facts the plan pins.
      const plan = (await api(serve, KEY_A, `/v1/threads/${threadId}/plan`)).body;
      const facts = plan.current.plan.summarizations.flatMap(
        (record: { summary: { facts: Array<{ pinned: boolean }> } }) => record.summary.facts,
      );
      expect(await page.locator('li[data-pinned="true"]').count()).toBe(
        facts.filter((fact: { pinned: boolean }) => fact.pinned).length,
      );
      expect(await page.locator('[data-testid="summary"] li[data-pinned]').count()).toBe(facts.length);
      await shot(page, 'live-compaction');
      await page.close();
    });

    it('pages and virtualizes a 10,000-message timeline: few rows in the DOM, every message reachable', async () => {
      const longId = 'long-thread';
      await api(serve, KEY_A, '/v1/threads', {
        method: 'POST',
        body: JSON.stringify({ threadId: longId, model: 'claude-sonnet-4-5' }),
      });
      for (let batch = 0; batch < 20; batch += 1) {
        const events = Array.from({ length: 500 }, (_, offset) => {
          const n = batch * 500 + offset;
          return {
            eventId: `e${n}`,
            type: 'message.appended',
            message: {
              id: `m${n}`,
              role: n % 2 === 0 ? 'user' : 'assistant',
              content: [{ type: 'text', text: `message ${n}` }],
            },
          };
        });
        const appended = await api(serve, KEY_A, `/v1/threads/${longId}/events`, {
          method: 'POST',
          body: JSON.stringify({ events }),
        });
        expect(appended.status).toBe(201);
      }
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await signIn(page, serve, KEY_A);
      await page.goto(`${serve.url}/ui/#/threads/${longId}`);
      const loaded = () => page.getByTestId('timeline-count').textContent().then(Number);
      // One page of 1,000 events first: thread.created and 999 messages.
      await expect.poll(loaded).toBe(999);
      const timeline = page.locator('section.timeline');
      for (let round = 0; round < 40 && (await loaded()) < 10_000; round += 1) {
        await timeline.evaluate((element) => {
          element.scrollTop = element.scrollHeight;
        });
        await page.waitForTimeout(150);
      }
      await expect.poll(loaded, { timeout: 30_000 }).toBe(10_000);
      await timeline.evaluate((element) => {
        element.scrollTop = element.scrollHeight;
      });
      await page.locator('li[data-message="m9999"]').waitFor();
      expect(await timeline.locator('li').count()).toBeLessThan(80);
      await page.close();
    });

    it('switches auto-compaction off, renders for another provider, and branches at a message', async () => {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await signIn(page, serve, KEY_A);
      await page.goto(`${serve.url}/ui/#/threads/${encodeURIComponent(threadId)}`);
      await page.getByTestId('context-parts').waitFor();

      await page.getByLabel('Auto-compaction').uncheck();
      await expect.poll(() => page.getByTestId('notice').textContent()).toBe('Auto-compaction off');
      expect((await api(serve, KEY_A, `/v1/threads/${threadId}`)).body.policy.autoCompact).toBe(false);
      await page.getByLabel('Auto-compaction').check();
      await expect.poll(() => page.getByTestId('notice').textContent()).toBe('Auto-compaction on');

      await page.getByLabel('Provider').selectOption('openai-chat');
      await expect
        .poll(() => page.locator('.parts caption').textContent())
        .toContain('Rendered for openai-chat');

      const third = page.locator('section.timeline li').nth(2);
      const messageId = await third.getAttribute('data-message');
      await third.getByRole('button', { name: `Branch at ${messageId}` }).click();
      await expect.poll(() => page.url()).not.toContain(encodeURIComponent(threadId));
      await page.getByText(`branched from ${threadId}`, { exact: false }).waitFor();
      const branchId = decodeURIComponent(page.url().split('#/threads/')[1]!);
      const branch = (await api(serve, KEY_A, `/v1/threads/${branchId}`)).body;
      expect(branch.branchedFrom).toMatchObject({ sourceThreadId: threadId, fromMessageId: messageId });
      expect(branch.messageCount).toBe(3);
      // Back on the source thread, the branch is one of its branch points, at that message.
      await page.goto(`${serve.url}/ui/#/threads/${encodeURIComponent(threadId)}`);
      await page.getByTestId('branch-points').getByRole('link', { name: branchId }).waitFor();
      await page
        .locator(`li[data-message="${messageId}"]`)
        .getByRole('link', { name: `⑂ ${branchId}` })
        .waitFor();
      await page.close();
    });

    it("shows a second tenant's key none of it", async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 700 } });
      const page = await context.newPage();
      await signIn(page, serve, KEY_B);
      await page.getByText('No threads').waitFor();
      expect(await page.locator('tr[data-thread]').count()).toBe(0);
      await page.goto(`${serve.url}/ui/#/threads/${encodeURIComponent(threadId)}`);
      await page.reload();
      const alert = page.getByRole('alert');
      await alert.waitFor();
      expect(await alert.textContent()).toContain('not found');
      await context.close();
    });

    it('is usable from the keyboard: sign-in, search and thread links are reachable with Tab', async () => {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`${serve.url}/ui/`);
      await page.keyboard.press('Tab');
      await page.keyboard.press('Tab');
      expect(await page.locator(':focus').getAttribute('id')).toBe('api-key');
      await page.keyboard.type(KEY_A);
      await page.keyboard.press('Enter');
      await page.getByLabel('Search by thread id (prefix)').waitFor();
      await page.getByLabel('Search by thread id (prefix)').fill(threadId.slice(0, 6));
      await page.locator(`tr[data-thread="${threadId}"]`).waitFor();
      await context.close();
    });
  },
);
