import {
  abridgedMessage,
  type CompactionPlan,
  emptyPlan,
  type Message,
  type PlannerInput,
  planCompaction,
  type Thread,
  type ThreadMessage,
  tokenBudget,
} from '@compactor/core';
import { threadBuilder } from '@compactor/testkit/thread-builder';
import { describe, expect, it, vi } from 'vitest';
import { handleReadArtifact, renderPrompt, renderPromptSync } from '../src/index.js';
import { validateProviderRequest } from '../src/validate/index.js';
import { capturingSummarizer } from './support/capturing-summarizer.js';
import { rehydratedImageThread, SECURITY_CONTEXT, TENANT, TINY_PNG } from './support/fixtures.js';
import { MemoryArtifactStore } from './support/memory-artifact-store.js';
import { renderInput, requestText } from './support/render-helpers.js';
import { PROVIDERS, tokenizerFor } from './support/tokenizers.js';

/**
 * Media read back as media (ADR-0310) and tool-result media abridged in place (ADR-0311), planned
 * against the real renderer's measure and rendered for every provider.
 */

vi.setConfig({ testTimeout: 60_000 });

const tokenizer = tokenizerFor('anthropic');
const countMessage = (message: ThreadMessage) => tokenizer.countMessages([message], 'anthropic');
const ceiling = (maxInputTokens: number) =>
  tokenBudget({ maxInputTokens, outputReserveTokens: 0, safetyBufferTokens: 0, rehydrationReserveTokens: 0 });

function measureOf(thread: Thread) {
  return (plan: CompactionPlan) =>
    renderPromptSync(renderInput('anthropic', thread, plan, { budget: ceiling(1_000_000) })).tokens.total;
}

function plannerInput(thread: Thread, targetTokens: number, store: MemoryArtifactStore): PlannerInput {
  return {
    thread,
    currentPlan: null,
    targetTokens,
    measure: measureOf(thread),
    countMessage,
    countText: (text) => tokenizer.count(text),
    summarizer: capturingSummarizer(),
    artifactStore: store,
    now: '2025-01-02T00:00:00.000Z',
  };
}

/** A person's captioned wiring diagram (an inline PNG), the message the media tests abridge and read back. */
function wiringPhoto(): Message {
  return {
    id: 'photo',
    role: 'user',
    metadata: { caption: 'a wiring diagram with two workers behind a load balancer' },
    content: [
      { type: 'text', text: 'Here is how it is wired.' },
      { type: 'image', mediaType: 'image/png', source: { kind: 'base64', data: TINY_PNG } },
    ],
  };
}

/** A browser agent: `turns` requests, each answered after one screenshot (a tool result with an inline PNG). */
function browsingThread(turns: number, sensitiveTool = false): Thread {
  const builder = threadBuilder('browse', {
    tenantId: TENANT,
    policy: {
      keepRecentTurns: 1,
      keepRecentTokens: 0,
      ...(sensitiveTool
        ? {
            toolDurability: {
              defaultDurability: 'anchoring' as const,
              overrides: {
                screenshot: {
                  durability: 'replayable' as const,
                  mustPreserveFields: [],
                  artifactSensitivity: 'confidential' as const,
                },
              },
            },
          }
        : {}),
    },
  });
  for (let turn = 1; turn <= turns; turn += 1) {
    builder
      .user(`Open page ${turn} and describe it.`, { id: `u${turn}` })
      .assistant(`Opening page ${turn}.`, {
        id: `a${turn}`,
        toolCalls: [{ id: `s${turn}`, name: 'screenshot', input: { page: turn } }],
      })
      .toolResult(`s${turn}`, `Page ${turn} loaded: title "Report ${turn}".`, {
        id: `shot${turn}`,
        // Distinct bytes per page, so each screenshot is its own artifact.
        media: [
          {
            type: 'image',
            mediaType: 'image/png',
            source: { kind: 'base64', data: `${TINY_PNG}${'A'.repeat(turn * 4)}` },
          },
        ],
      })
      .assistant(`Page ${turn} shows report ${turn} with a chart.`, { id: `d${turn}` });
  }
  return builder.build().thread;
}

describe('tool-result media (ADR-0311)', () => {
  it('old screenshots give way to stand-ins before any text is summarized; each result stays a result', async () => {
    const thread = browsingThread(6);
    const full = measureOf(thread)(emptyPlan(thread.id, 'now'));
    const store = new MemoryArtifactStore();
    const input = plannerInput(thread, full - 1_000, store);
    const outcome = await planCompaction(input);
    expect(outcome.status).toBe('compacted');
    expect(outcome.rungsUsed).toEqual(['abridge']);
    const abridged = outcome.plan.abridgements.map((record) => record.span.messageIds[0]);
    // Oldest first (as deep as the cache cost model goes); the newest turn keeps its screenshot.
    expect(abridged.length).toBeGreaterThan(0);
    expect(abridged).toEqual(['shot1', 'shot2', 'shot3', 'shot4', 'shot5'].slice(0, abridged.length));
    const after = measureOf(thread)(outcome.plan);
    // Anthropic's 1,600-token image estimate, against a stand-in of a few dozen tokens, per screenshot.
    expect(full - after).toBeGreaterThan(abridged.length * 1_500);

    const record = outcome.plan.abridgements[0]!;
    expect(record.parts).toHaveLength(1);
    expect(record.parts[0]!.reason).toBe('result-media');
    const artifactId = record.parts[0]!.media![0]!.artifactId!;
    const stored = await store.getMetadata(artifactId, SECURITY_CONTEXT);
    expect(stored?.contentType).toBe('image/png');
    const shown = abridgedMessage(thread.messages.find((message) => message.id === 'shot1')!, record);
    const result = shown.content[0]!;
    expect(result.type).toBe('tool_result');
    expect(result.type === 'tool_result' && result.media).toBeUndefined();
    expect(result.type === 'tool_result' && result.content).toContain('Page 1 loaded');
    expect(result.type === 'tool_result' && result.content).toContain(`Source: artifact:${artifactId}`);
    expect(result.type === 'tool_result' && result.content).toContain('call read_artifact with that id');

    for (const provider of PROVIDERS) {
      const rendered = renderPromptSync(renderInput(provider, thread, outcome.plan));
      expect(validateProviderRequest(provider, rendered.request).errors).toEqual([]);
      expect(rendered.report.counts.orphanResults).toBe(0);
      expect(rendered.report.counts.missingResults).toBe(0);
      // The newest turn's screenshot is still sent as an image; the abridged ones are not.
      const text = requestText(rendered.request);
      expect(text.split(TINY_PNG).length - 1).toBe(6 - abridged.length);
    }
  });

  it("a computer-use agent's one long turn: its older screenshots give way, the latest ones stay images", async () => {
    const builder = threadBuilder('computer', { tenantId: TENANT });
    builder.user('Book the cheapest flight to Oslo on the airline site.', { id: 'u1' });
    for (let step = 1; step <= 30; step += 1) {
      builder
        .assistant(`Step ${step}: clicking.`, {
          id: `a${step}`,
          toolCalls: [{ id: `c${step}`, name: 'computer', input: { action: 'screenshot' } }],
        })
        .toolResult(`c${step}`, `Step ${step} done.`, {
          id: `shot${step}`,
          media: [
            {
              type: 'image',
              mediaType: 'image/png',
              source: { kind: 'base64', data: `${TINY_PNG}${'B'.repeat(step * 4)}` },
            },
          ],
        });
    }
    const thread = builder.build().thread;
    const full = measureOf(thread)(emptyPlan(thread.id, 'now'));
    // The running turn alone is over half the target, so its protected tail is the token suffix.
    const outcome = await planCompaction(plannerInput(thread, full - 10_000, new MemoryArtifactStore()));
    expect(outcome.status).toBe('compacted');
    expect(outcome.rungsUsed).toEqual(['abridge']);
    const abridged = new Set(outcome.plan.abridgements.map((record) => record.span.messageIds[0]));
    expect(abridged.has('shot1')).toBe(true);
    expect(abridged.has('shot30')).toBe(false);
    // The person's request and every call and result pair stay.
    const rendered = renderPromptSync(renderInput('anthropic', thread, outcome.plan));
    expect(validateProviderRequest('anthropic', rendered.request).errors).toEqual([]);
    expect(requestText(rendered.request)).toContain('Book the cheapest flight to Oslo');
    expect(rendered.report.counts.orphanResults).toBe(0);
  });

  it("keeps a tool's stricter sensitivity on its stored screenshots; read_artifact needs the permission", async () => {
    const thread = browsingThread(3, true);
    const full = measureOf(thread)(emptyPlan(thread.id, 'now'));
    const store = new MemoryArtifactStore();
    const outcome = await planCompaction(plannerInput(thread, full - 1_000, store));
    const medium = outcome.plan.abridgements[0]!.parts[0]!.media![0]!;
    expect(medium.sensitivity).toBe('confidential');
    const denied = await handleReadArtifact(
      { artifact_id: medium.artifactId },
      { toolCallId: 'r1', artifactStore: store, securityContext: SECURITY_CONTEXT, plan: outcome.plan },
    );
    expect(denied.result.outcome).toBe('failure');
    expect(denied.result.media).toBeUndefined();
  });
});

describe('the emergency fit (ADR-0311)', () => {
  it('replaces old screenshots inside their results; nothing is dropped', () => {
    const thread = browsingThread(4);
    for (const provider of PROVIDERS) {
      const full = renderPromptSync(renderInput(provider, thread, null, { budget: ceiling(1_000_000) }));
      const result = renderPromptSync(
        renderInput(provider, thread, null, { budget: ceiling(full.tokens.total - 1_000) }),
      );
      const fit = result.report.emergencyFit!;
      expect(fit.abridgedMessages.length).toBeGreaterThan(0);
      expect(fit.abridgedMessages.every((id) => id.startsWith('shot'))).toBe(true);
      expect(fit.dropped).toEqual([]);
      expect(validateProviderRequest(provider, result.request).errors).toEqual([]);
      expect(result.report.counts.orphanResults).toBe(0);
      // The newest turn's screenshot is still an image, with its result's text.
      const text = requestText(result.request);
      expect(text).toContain('Page 4 loaded');
      expect(text).toContain(`${TINY_PNG}${'A'.repeat(16)}`);
    }
  });
});

describe('an image read back as an image (ADR-0310)', () => {
  async function abridgedPhoto() {
    const thread = rehydratedImageThread();
    const photoOnly: Thread = { ...thread, messages: thread.messages.slice(0, 3) };
    const store = new MemoryArtifactStore();
    const full = measureOf(photoOnly)(emptyPlan(thread.id, 'now'));
    const outcome = await planCompaction(plannerInput(photoOnly, full - 1_000, store));
    return { outcome, store };
  }

  it('keeps the inline photo as an artifact and read_artifact returns it as an image, never as text', async () => {
    const { outcome, store } = await abridgedPhoto();
    const record = outcome.plan.abridgements.find((candidate) => candidate.span.messageIds[0] === 'photo')!;
    const medium = record.parts[0]!.media![0]!;
    expect(medium).toMatchObject({ kind: 'image', mediaType: 'image/png', sensitivity: 'internal' });
    expect(record.parts[0]!.text).toContain(`Source: artifact:${medium.artifactId}`);
    const read = await handleReadArtifact(
      { artifact_id: medium.artifactId },
      { toolCallId: 'r1', artifactStore: store, securityContext: SECURITY_CONTEXT, plan: outcome.plan },
    );
    expect(read.event.name).toBe('compaction_rehydrated');
    expect(read.result.media).toEqual([
      { type: 'image', mediaType: 'image/png', source: { kind: 'base64', data: TINY_PNG } },
    ]);
    expect(read.result.content).not.toContain(TINY_PNG);
  });

  it('reads a replaced URL image back by its URL, without a store', async () => {
    const thread = threadBuilder('url', { policy: { keepRecentTurns: 1, keepRecentTokens: 0 } })
      .message({
        id: 'photo',
        role: 'user',
        content: [
          { type: 'text', text: 'My desk.' },
          {
            type: 'image',
            mediaType: 'image/jpeg',
            source: { kind: 'url', url: 'https://example.com/desk.jpg' },
          },
        ],
      })
      .assistant('Nice desk.', { id: 'a1' })
      .user('What colour was the lamp?', { id: 'u2' })
      .build().thread;
    const full = measureOf(thread)(emptyPlan(thread.id, 'now'));
    const store = new MemoryArtifactStore();
    const outcome = await planCompaction(plannerInput(thread, full - 1_000, store));
    const read = await handleReadArtifact(
      { artifact_id: 'https://example.com/desk.jpg' },
      { toolCallId: 'r1', artifactStore: store, securityContext: SECURITY_CONTEXT, plan: outcome.plan },
    );
    expect(read.result.media).toEqual([
      {
        type: 'image',
        mediaType: 'image/jpeg',
        source: { kind: 'url', url: 'https://example.com/desk.jpg' },
      },
    ]);
    // A URL the plan never replaced is not read.
    const other = await handleReadArtifact(
      { artifact_id: 'https://example.com/other.jpg' },
      { toolCallId: 'r2', artifactStore: store, securityContext: SECURITY_CONTEXT, plan: outcome.plan },
    );
    expect(other.result.outcome).toBe('failure');
  });

  it('rehydrates a stored photo when the agent asks about what its caption says (the caption is its hint)', async () => {
    const build = (question: string | undefined) => {
      const builder = threadBuilder('caption', {
        tenantId: TENANT,
        policy: { keepRecentTurns: 1, keepRecentTokens: 0 },
      })
        .message(wiringPhoto())
        .assistant('Noted.', { id: 'a1' })
        .user('Which port do the workers listen on?', { id: 'u2' });
      if (question) builder.assistant(question, { id: 'a2' });
      return builder.build().thread;
    };
    const planned = build(undefined);
    const store = new MemoryArtifactStore();
    const full = measureOf(planned)(emptyPlan(planned.id, 'now'));
    const outcome = await planCompaction(plannerInput(planned, full - 1_000, store));
    const artifactId = outcome.plan.abridgements[0]!.parts[0]!.media![0]!.artifactId!;
    const render = (question: string) =>
      renderPrompt(
        renderInput('anthropic', build(question), outcome.plan, {
          artifactStore: store,
          securityContext: SECURITY_CONTEXT,
          budget: tokenBudget({
            maxInputTokens: 200_000,
            outputReserveTokens: 0,
            safetyBufferTokens: 0,
            rehydrationReserveTokens: 4_000,
          }),
        }),
      );
    const asked = await render('Which port did the wiring diagram show for the workers?');
    expect(asked.report.rehydration.performed.map((event) => [event.artifactId, event.trigger])).toEqual([
      [artifactId, 'hint'],
    ]);
    expect(requestText(asked.request)).toContain(TINY_PNG);
    const unrelated = await render('Which database do we use?');
    expect(unrelated.report.rehydration.performed).toEqual([]);
  });

  it('render-time rehydration shows a named image artifact as an image in every provider', async () => {
    const { outcome, store } = await abridgedPhoto();
    const artifactId = outcome.plan.abridgements[0]!.parts[0]!.media![0]!.artifactId!;
    const base = rehydratedImageThread();
    const thread = threadBuilder('readback', {
      tenantId: TENANT,
      policy: { keepRecentTurns: 1, keepRecentTokens: 0 },
    });
    for (const message of base.messages.slice(0, 3)) thread.message(message);
    thread.assistant(`I will look at artifact:${artifactId} again.`, { id: 'a2' });
    const built = thread.build().thread;
    for (const provider of PROVIDERS) {
      const result = await renderPrompt(
        renderInput(provider, built, outcome.plan, {
          artifactStore: store,
          securityContext: SECURITY_CONTEXT,
          budget: tokenBudget({
            maxInputTokens: 200_000,
            outputReserveTokens: 0,
            safetyBufferTokens: 0,
            rehydrationReserveTokens: 4_000,
          }),
        }),
      );
      expect(validateProviderRequest(provider, result.request).errors).toEqual([]);
      expect(result.report.rehydration.performed.map((event) => event.artifactId)).toEqual([artifactId]);
      const text = requestText(result.request);
      expect(text).toContain(`[Rehydrated Content - artifact:${artifactId}]`);
      // Once, as image data (a data URL for OpenAI), never as the rehydrated text.
      expect(text.split(TINY_PNG).length - 1).toBe(1);
      expect(text).not.toContain(`shown below)\\n${TINY_PNG}`);
    }
  });
});

describe('a summary that absorbs an abridged image lists its artifact (ADR-0330)', () => {
  function captionedThread(): Thread {
    // The person's words are not kept verbatim here, so the summary takes the photo's message.
    const builder = threadBuilder('absorbed', {
      tenantId: TENANT,
      policy: { keepRecentTurns: 1, keepRecentTokens: 0, keepUserMessages: false },
    })
      .message(wiringPhoto())
      .assistant('Noted: two workers behind a load balancer.', { id: 'a1' });
    for (let turn = 2; turn <= 5; turn += 1) {
      builder
        .user(`Step ${turn}: ${'configure the next worker pool with its own health check. '.repeat(8)}`, {
          id: `u${turn}`,
        })
        .assistant(`Done with step ${turn}. ${'The pool answers its health check. '.repeat(8)}`, {
          id: `a${turn}`,
        });
    }
    return builder.build().thread;
  }

  async function summarizedPlan(sensitivity?: 'confidential') {
    const thread = captionedThread();
    const store = new MemoryArtifactStore();
    const full = measureOf(thread)(emptyPlan(thread.id, 'now'));
    const defaults = sensitivity ? { artifactDefaults: { sensitivity } } : {};
    // The ladder abridges the photo (storing it), then summarizes its turn, in one run.
    const outcome = await planCompaction({ ...plannerInput(thread, full - 300, store), ...defaults });
    const abridged = outcome.added.find((record) => record.kind === 'abridge');
    const artifactId = abridged?.kind === 'abridge' ? abridged.parts[0]!.media![0]!.artifactId! : '';
    expect(artifactId).not.toBe('');
    return { thread, store, artifactId, plan: outcome.plan };
  }

  it('keeps the image artifact in summary.artifacts with its caption; read_artifact still shows the image', async () => {
    const { thread, store, artifactId, plan } = await summarizedPlan();
    expect(plan.abridgements.some((record) => record.span.messageIds.includes('photo'))).toBe(false);
    const summary = plan.summarizations.find((record) => record.span.messageIds.includes('photo'))!.summary;
    expect(summary.artifacts).toContainEqual({
      artifactId,
      description: 'image (image/png) of turn 1',
      rehydrateHint:
        'a wiring diagram with two workers behind a load balancer; read_artifact shows it again as an image',
    });
    const text = requestText(renderPromptSync(renderInput('anthropic', thread, plan)).request);
    expect(text).toContain(`artifact:${artifactId} image (image/png) of turn 1 (a wiring diagram`);
    const read = await handleReadArtifact(
      { artifact_id: artifactId },
      { toolCallId: 'r1', artifactStore: store, securityContext: SECURITY_CONTEXT, plan },
    );
    expect(read.result.media).toEqual([
      { type: 'image', mediaType: 'image/png', source: { kind: 'base64', data: TINY_PNG } },
    ]);
  });

  it("lists a tool result's stored screenshots once an externalization and a summary take their results", async () => {
    const thread = browsingThread(5);
    const store = new MemoryArtifactStore();
    const full = measureOf(thread)(emptyPlan(thread.id, 'now'));
    // Abridged, then externalized (the result's text), then summarized, in one run.
    const outcome = await planCompaction(plannerInput(thread, Math.floor(full / 6), store));
    const storedOf = (id: string) =>
      outcome.added.flatMap((record) =>
        record.kind === 'abridge' && record.span.messageIds[0] === id
          ? record.parts.flatMap((part) => (part.media ?? []).map((medium) => medium.artifactId!))
          : [],
      );
    const first = outcome.plan.summarizations.find((record) => record.span.messageIds.includes('shot1'))!;
    expect(first.span.messageIds).toContain('shot2');
    // Listed, or thinned out of the text for space (still the plan's).
    const held = [...first.summary.artifacts, ...(first.summary.externalizedArtifacts ?? [])];
    const listed = held.map((artifact) => artifact.artifactId);
    for (const artifactId of [...storedOf('shot1'), ...storedOf('shot2')])
      expect(listed).toContain(artifactId);
    const shot = held.find((artifact) => artifact.artifactId === storedOf('shot1')[0])!;
    expect(shot.description).toBe('image (image/png) of turn 1');
    const read = await handleReadArtifact(
      { artifact_id: shot.artifactId },
      { toolCallId: 'r1', artifactStore: store, securityContext: SECURITY_CONTEXT, plan: outcome.plan },
    );
    expect(read.result.media?.[0]?.type).toBe('image');
  });

  it('keeps every stored screenshot readable when tight summaries thin their artifact lists', async () => {
    const thread = browsingThread(5);
    const store = new MemoryArtifactStore();
    const full = measureOf(thread)(emptyPlan(thread.id, 'now'));
    const outcome = await planCompaction(plannerInput(thread, Math.floor(full / 12), store));
    const stored = outcome.added.flatMap((record) =>
      record.kind === 'abridge'
        ? record.parts.flatMap((part) => (part.media ?? []).map((medium) => medium.artifactId!))
        : [],
    );
    expect(stored).toHaveLength(5);
    expect(
      outcome.plan.summarizations.some((record) => (record.summary.externalizedArtifacts ?? []).length > 0),
    ).toBe(true);
    for (const artifactId of stored) {
      const read = await handleReadArtifact(
        { artifact_id: artifactId },
        { toolCallId: 'r1', artifactStore: store, securityContext: SECURITY_CONTEXT, plan: outcome.plan },
      );
      expect(read.result.media?.[0]?.type).toBe('image');
    }
  });

  it('leaves the caption of a confidential image out of the summary, keeping its id', async () => {
    const { artifactId, plan } = await summarizedPlan('confidential');
    const summary = plan.summarizations.find((record) => record.span.messageIds.includes('photo'))!.summary;
    expect(summary.artifacts).toContainEqual({
      artifactId,
      description: 'image (image/png) of turn 1',
      rehydrateHint: 'read_artifact shows it again as an image',
    });
  });
});

describe('a data: URL image is inline data (ADR-0330)', () => {
  it('is stored as an artifact, never written as text, and read back as an image', async () => {
    const thread = threadBuilder('dataurl', {
      tenantId: TENANT,
      policy: { keepRecentTurns: 1, keepRecentTokens: 0 },
    })
      .message({
        id: 'photo',
        role: 'user',
        content: [
          { type: 'text', text: 'Here is the wiring diagram.' },
          {
            type: 'image',
            mediaType: 'image/*',
            source: { kind: 'url', url: `data:image/png;base64,${TINY_PNG}` },
          },
        ],
      })
      .assistant('Noted.', { id: 'a1' })
      .user('Which port did the diagram show?', { id: 'u2' })
      .build().thread;
    const store = new MemoryArtifactStore();
    const full = measureOf(thread)(emptyPlan(thread.id, 'now'));
    const outcome = await planCompaction(plannerInput(thread, full - 1_000, store));
    const record = outcome.plan.abridgements.find((candidate) => candidate.span.messageIds[0] === 'photo')!;
    const medium = record.parts[0]!.media![0]!;
    expect(medium).toMatchObject({ kind: 'image', mediaType: 'image/*' });
    expect(record.parts[0]!.text).toContain(`Source: artifact:${medium.artifactId}`);
    expect(record.parts[0]!.text).not.toContain(TINY_PNG);
    const text = requestText(renderPromptSync(renderInput('anthropic', thread, outcome.plan)).request);
    expect(text).not.toContain(TINY_PNG);
    const read = await handleReadArtifact(
      { artifact_id: medium.artifactId },
      { toolCallId: 'r1', artifactStore: store, securityContext: SECURITY_CONTEXT, plan: outcome.plan },
    );
    // Stored under the type the data URL names, so the provider gets a concrete image type.
    expect(read.result.media).toEqual([
      { type: 'image', mediaType: 'image/png', source: { kind: 'base64', data: TINY_PNG } },
    ]);
  });
});

describe("read_artifact's maxTokens holds for images (ADR-0331)", () => {
  it('gives an image that would exceed the limit back as its caption and size, within the limit', async () => {
    const thread = threadBuilder('limit', {
      tenantId: TENANT,
      policy: { keepRecentTurns: 1, keepRecentTokens: 0 },
    })
      .message(wiringPhoto())
      .assistant('Noted.', { id: 'a1' })
      .user('Which port do the workers listen on?', { id: 'u2' })
      .build().thread;
    const store = new MemoryArtifactStore();
    const full = measureOf(thread)(emptyPlan(thread.id, 'now'));
    const outcome = await planCompaction(plannerInput(thread, full - 1_000, store));
    const artifactId = outcome.plan.abridgements[0]!.parts[0]!.media![0]!.artifactId!;
    const read = (maxTokens: number, provider?: 'openai-chat') =>
      handleReadArtifact(
        { artifact_id: artifactId },
        {
          toolCallId: 'r1',
          artifactStore: store,
          securityContext: SECURITY_CONTEXT,
          plan: outcome.plan,
          maxTokens,
          tokenizer,
          ...(provider ? { provider } : {}),
        },
      );
    const small = await read(200);
    expect(small.result.media).toBeUndefined();
    expect(small.result.outcome).toBe('partial');
    expect(small.result.content).toContain(`[Image not shown: ${artifactId} (image/png) costs about`);
    expect(small.result.content).toContain(
      'What it shows: a wiring diagram with two workers behind a load balancer',
    );
    expect(small.result.content).not.toContain(TINY_PNG);
    expect(tokenizer.count(String(small.result.content))).toBeLessThanOrEqual(200);
    expect(small.event).toMatchObject({ name: 'compaction_rehydrated', truncated: true });
    // A limit the image fits comes back as the image.
    const large = await read(5_000);
    expect(large.result.media?.[0]?.type).toBe('image');
    expect(large.event).toMatchObject({ truncated: false });
    // A limit too small for even the note: the note is cut to it.
    const tiny = await read(10);
    expect(tokenizer.count(String(tiny.result.content))).toBeLessThanOrEqual(10);
  });
});

describe('a data: URL image in the newest turns is never written as text (ADR-0333)', () => {
  it('is sent as an image where the provider takes it, and referenced without its data where it does not', () => {
    const dataUrl = `data:image/png;base64,${TINY_PNG}`;
    const thread = threadBuilder('dataurl-tail', { tenantId: TENANT })
      .message({
        id: 'photo',
        role: 'user',
        content: [
          { type: 'text', text: 'Here is the diagram.' },
          { type: 'image', mediaType: 'image/png', source: { kind: 'url', url: dataUrl } },
        ],
      })
      // An assistant's image is always referenced as text: the data must not be.
      .message({
        id: 'drawn',
        role: 'assistant',
        content: [
          { type: 'text', text: 'I drew this.' },
          { type: 'image', mediaType: 'image/png', source: { kind: 'url', url: dataUrl } },
        ],
      })
      .user('Which port?', { id: 'u2' })
      .build().thread;
    for (const provider of PROVIDERS) {
      const result = renderPromptSync(renderInput(provider, thread, null));
      expect(validateProviderRequest(provider, result.request).errors).toEqual([]);
      const text = requestText(result.request);
      expect(text).toContain('[Image: inline data not sent (image/png)]');
      // Once: the user's image, as image data; never the assistant's.
      expect(text.split(TINY_PNG).length - 1).toBe(1);
    }
    const anthropic = renderPromptSync(renderInput('anthropic', thread, null)).request as {
      messages: { content: { type: string; source?: unknown }[] }[];
    };
    const image = anthropic.messages
      .flatMap((message) => message.content)
      .find((block) => block.type === 'image');
    expect(image?.source).toEqual({ type: 'base64', media_type: 'image/png', data: TINY_PNG });
  });
});
