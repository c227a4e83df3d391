import {
  ARTIFACT_PERMISSION_CONFIDENTIAL,
  type ProviderName,
  parsePolicy,
  type RehydrationPolicy,
  tokenBudget,
} from '@compactor/core';
import { describe, expect, it } from 'vitest';
import {
  findArtifactId,
  handleReadArtifact,
  type RehydrationState,
  rehydrationEventsToLifecycle,
  renderPrompt,
  renderPromptSync,
} from '../src/index.js';
import { validateProviderRequest } from '../src/validate/index.js';
import { deploySession, SECURITY_CONTEXT, TENANT } from './support/fixtures.js';
import { MemoryArtifactStore } from './support/memory-artifact-store.js';
import { externalize, ids, planOf } from './support/plans.js';
import { renderInput, requestText, wireMessages } from './support/render-helpers.js';
import { independentCount, PROVIDERS, tokenizerFor } from './support/tokenizers.js';

const ARTIFACTS = {
  art_log: { content: `deploy log\n${'step ok\n'.repeat(200)}`, sensitivity: 'internal' as const },
  art_cfg: { content: 'port: 9090', sensitivity: 'public' as const },
  art_keys: { content: 'API_KEY=very-secret', sensitivity: 'confidential' as const },
  art_big: { content: 'line of a long file\n'.repeat(3_000), sensitivity: 'internal' as const },
};

function storeWithArtifacts(): MemoryArtifactStore {
  const store = new MemoryArtifactStore();
  for (const [artifactId, artifact] of Object.entries(ARTIFACTS)) {
    store.add(artifactId, artifact.content, {
      threadId: 'deploy',
      tenantId: TENANT,
      sensitivity: artifact.sensitivity,
    });
  }
  return store;
}

/** The deploy session with four externalized spans, and a latest assistant message saying `latest`. */
function scenario(latest: string) {
  const { thread } = deploySession((builder) => {
    builder.user('Keep going.', { id: 'm18' });
    builder.assistant(latest, { id: 'm19' });
  });
  const plan = planOf(thread, [
    externalize(thread, ids(3, 4), 'art_log', {}),
    externalize(thread, ids(5, 6), 'art_cfg', {}),
    externalize(thread, ['m8'], 'art_keys', {}, '', 'confidential'),
    externalize(thread, ['m12', 'm13'], 'art_big', {}),
  ]);
  return { thread, plan, turn: thread.messages.at(-1)!.turn };
}

const policy = (overrides: Partial<RehydrationPolicy> = {}): RehydrationPolicy => ({
  ...parsePolicy().rehydration,
  ...overrides,
});

async function render(
  latest: string,
  options: {
    provider?: ProviderName;
    policy?: RehydrationPolicy;
    state?: RehydrationState;
    store?: MemoryArtifactStore;
    security?: typeof SECURITY_CONTEXT | undefined;
    reserve?: number;
    turn?: number;
  } = {},
) {
  const { thread, plan, turn } = scenario(latest);
  const provider = options.provider ?? 'anthropic';
  const store = options.store ?? storeWithArtifacts();
  const result = await renderPrompt(
    renderInput(provider, thread, plan, {
      artifactStore: store,
      ...('security' in options
        ? options.security
          ? { securityContext: options.security }
          : {}
        : { securityContext: SECURITY_CONTEXT }),
      rehydration: { policy: options.policy ?? policy(), ...(options.state ? { state: options.state } : {}) },
      turn: options.turn ?? turn,
      budget: tokenBudget({
        maxInputTokens: 200_000,
        outputReserveTokens: 0,
        safetyBufferTokens: 0,
        rehydrationReserveTokens: options.reserve ?? 10_000,
      }),
    }),
  );
  expect(validateProviderRequest(provider, result.request).errors).toEqual([]);
  expect(independentCount(provider, result.request)).toBeLessThanOrEqual(result.tokens.total);
  return { result, store, thread, turn };
}

const performedIds = (result: Awaited<ReturnType<typeof render>>['result']) =>
  result.report.rehydration.performed.map((event) => event.artifactId);
const blocked = (result: Awaited<ReturnType<typeof render>>['result']) =>
  result.report.rehydration.blocked.map((event) => [event.artifactId, event.reason]);

describe('automatic rehydration', () => {
  it('injects an artifact the latest message names, at the end, ephemerally, for every provider', async () => {
    for (const provider of PROVIDERS) {
      const { result, thread, turn } = await render('Let me re-read artifact:art_cfg first.', { provider });
      expect(performedIds(result)).toEqual(['art_cfg']);
      const last = JSON.stringify(wireMessages(result.request).at(-1));
      expect(last).toContain('[Rehydrated Content - artifact:art_cfg]');
      expect(last).toContain('port: 9090');
      expect(result.tokens.rehydration).toBeGreaterThan(0);
      expect(result.report.rehydration.nextState).toEqual({ injectedAtTurn: { art_cfg: turn } });
      // Never written to the log: the thread is the caller's, untouched.
      expect(JSON.stringify(thread)).not.toContain('port: 9090');
    }
  });

  it('matches artifact ids as whole tokens only', async () => {
    expect(findArtifactId('see artifact:art_cfg.', 'art_cfg')).toBe(13);
    expect(findArtifactId('read_artifact("art_cfg")', 'art_cfg')).toBe(15);
    expect(findArtifactId('art_cfgx and xart_cfg and art_cfg-2 and art_cfg_old', 'art_cfg')).toBe(-1);
    const { result, store } = await render('Compare art_cfgx, xart_cfg, art_cfg_v2 and art-cfg.');
    expect(result.report.rehydration.performed).toEqual([]);
    expect(result.report.rehydration.blocked).toEqual([]);
    expect(store.reads).toEqual([]);
  });

  it('also rehydrates for a pending tool call whose input names an artifact', async () => {
    const { thread, plan, turn } = scenario('Running the diff.');
    const withCall = {
      ...thread,
      messages: [
        ...thread.messages,
        {
          id: 'm20',
          role: 'assistant' as const,
          content: [{ type: 'tool_call' as const, id: 'd1', name: 'diff', input: { against: ['art_log'] } }],
          seq: 100,
          index: thread.messages.length,
          turn,
        },
      ],
    };
    const result = await renderPrompt(
      renderInput('anthropic', withCall, plan, {
        artifactStore: storeWithArtifacts(),
        securityContext: SECURITY_CONTEXT,
      }),
    );
    expect(result.report.rehydration.performed).toMatchObject([
      { artifactId: 'art_log', trigger: 'tool_call' },
    ]);
  });

  it('truncates each artifact to maxTokensPerArtifact', async () => {
    const { result } = await render('I need art_big.', { policy: policy({ maxTokensPerArtifact: 300 }) });
    const [event] = result.report.rehydration.performed;
    expect(event).toMatchObject({ artifactId: 'art_big', truncated: true });
    expect(event!.tokens).toBeLessThanOrEqual(300 + 120);
    expect(requestText(result.request)).toContain(
      'Truncated to about 300 tokens; call read_artifact(\\"art_big\\")',
    );
  });

  it('keeps the total within min(policy total, budget reserve, room left) and blocks what does not fit', async () => {
    const tight = await render('Need art_log and art_big.', { reserve: 500 });
    expect(tight.result.tokens.rehydration).toBeLessThanOrEqual(500);
    expect(tight.result.report.rehydration.allowance).toBe(500);
    const policyBound = await render('Need art_log and art_big.', {
      policy: policy({ totalBudgetTokens: 700 }),
    });
    expect(policyBound.result.tokens.rehydration).toBeLessThanOrEqual(700);
    const none = await render('Need art_log.', { reserve: 10 });
    expect(performedIds(none.result)).toEqual([]);
    expect(blocked(none.result)).toEqual([['art_log', 'budget']]);
  });

  it('never pushes the request over the ceiling: rehydration only takes room the conversation leaves', async () => {
    const { thread, plan } = scenario('Need art_big.');
    const provider = 'anthropic';
    const bare = renderPromptSync(renderInput(provider, thread, plan));
    const ceiling = bare.tokens.total + 150;
    const result = await renderPrompt(
      renderInput(provider, thread, plan, {
        artifactStore: storeWithArtifacts(),
        securityContext: SECURITY_CONTEXT,
        budget: tokenBudget({ maxInputTokens: ceiling, outputReserveTokens: 0, safetyBufferTokens: 0 }),
      }),
    );
    expect(result.tokens.total).toBeLessThanOrEqual(ceiling);
    expect(result.report.emergencyFit).toBeNull();
    expect(result.report.rehydration.allowance).toBe(150);
    expect(result.tokens.rehydration).toBeLessThanOrEqual(150);
    expect(independentCount(provider, result.request)).toBeLessThanOrEqual(result.tokens.total);
  });

  it('injects at most maxArtifactsPerTurn and blocks the rest', async () => {
    const { result } = await render('Compare art_log, art_cfg and art_big.', {
      policy: policy({ maxArtifactsPerTurn: 2 }),
    });
    expect(performedIds(result)).toEqual(['art_log', 'art_cfg']);
    expect(blocked(result)).toEqual([['art_big', 'max_per_turn']]);
  });

  it('applies the cooldown per artifact, and shows an artifact again within the turn it was injected', async () => {
    const { turn } = scenario('x');
    const injectedLastTurn: RehydrationState = { injectedAtTurn: { art_cfg: turn - 1 } };
    const cooling = await render('art_cfg again.', {
      state: injectedLastTurn,
      policy: policy({ cooldownTurns: 2 }),
    });
    expect(blocked(cooling.result)).toEqual([['art_cfg', 'cooldown']]);
    const cooled = await render('art_cfg again.', {
      state: { injectedAtTurn: { art_cfg: turn - 2 } },
      policy: policy({ cooldownTurns: 2 }),
    });
    expect(performedIds(cooled.result)).toEqual(['art_cfg']);
    const sameTurn = await render('Nothing named here.', { state: { injectedAtTurn: { art_cfg: turn } } });
    expect(sameTurn.result.report.rehydration.performed).toMatchObject([
      { artifactId: 'art_cfg', trigger: 'same_turn' },
    ]);
    expect(sameTurn.result.report.rehydration.nextState).toEqual({ injectedAtTurn: { art_cfg: turn } });
  });

  it('never auto-rehydrates confidential or restricted artifacts, and does not even read them', async () => {
    const { result, store } = await render('Use art_keys to log in.', {
      security: { ...SECURITY_CONTEXT, permissions: [ARTIFACT_PERMISSION_CONFIDENTIAL] },
    });
    expect(result.report.rehydration.blocked).toMatchObject([
      { artifactId: 'art_keys', reason: 'sensitivity', sensitivity: 'confidential' },
    ]);
    expect(store.reads).toEqual([]);
    expect(requestText(result.request)).not.toContain('very-secret');
  });

  it('blocks on a tenant mismatch, whether the store hides the artifact or the access rule refuses it', async () => {
    const otherTenant = { ...SECURITY_CONTEXT, tenantId: 'tenant-2' };
    const hidden = await render('Need art_cfg.', { security: otherTenant });
    expect(blocked(hidden.result)).toEqual([['art_cfg', 'not_found']]);
    const revealing = storeWithArtifacts();
    revealing.getMetadata = async (artifactId) => {
      const read = await storeWithArtifacts().retrieve(artifactId, SECURITY_CONTEXT);
      return read.status === 'ok' ? read.metadata : null;
    };
    const refused = await render('Need art_cfg.', { security: otherTenant, store: revealing });
    expect(refused.result.report.rehydration.blocked).toMatchObject([
      { artifactId: 'art_cfg', reason: 'access_denied', detail: 'tenant mismatch' },
    ]);
    expect(revealing.reads).toEqual([]);
    expect(requestText(refused.result.request)).not.toContain('port: 9090');
  });

  it('blocks without a security context, and does nothing when disabled or not asked', async () => {
    const anonymous = await render('Need art_cfg.', { security: undefined });
    expect(blocked(anonymous.result)).toEqual([['art_cfg', 'no_security_context']]);
    const disabled = await render('Need art_cfg.', { policy: policy({ enabled: false }) });
    expect(disabled.result.report.rehydration.performed).toEqual([]);
    expect(disabled.result.report.rehydration.blocked).toEqual([]);
    const { thread, plan } = scenario('Need art_cfg.');
    const sync = renderPromptSync(renderInput('anthropic', thread, plan));
    expect(sync.report.rehydration.attempted).toBe(false);
    expect(sync.tokens.rehydration).toBe(0);
  });

  it('turns events into lifecycle events without any artifact content', async () => {
    const { result } = await render('Need art_cfg and art_keys.');
    const events = rehydrationEventsToLifecycle(
      [...result.report.rehydration.performed, ...result.report.rehydration.blocked],
      { tenantId: TENANT, threadId: 'deploy' },
      '2025-01-01T00:00:00.000Z',
    );
    expect(events.map((event) => [event.name, event.details?.artifactId])).toEqual([
      ['compaction_rehydrated', 'art_cfg'],
      ['compaction_rehydration_blocked', 'art_keys'],
    ]);
    expect(JSON.stringify(events)).not.toContain('port: 9090');
  });
});

describe('read_artifact (explicit rehydration)', () => {
  const { plan } = scenario('x');
  const context = (overrides: Partial<Parameters<typeof handleReadArtifact>[1]> = {}) => ({
    toolCallId: 'r1',
    artifactStore: storeWithArtifacts(),
    securityContext: SECURITY_CONTEXT,
    plan,
    ...overrides,
  });

  it('returns the content as a replayable tool result, with its content hash', async () => {
    const outcome = await handleReadArtifact({ artifact_id: 'art_cfg' }, context());
    expect(outcome.result).toMatchObject({
      type: 'tool_result',
      toolName: 'read_artifact',
      toolCallId: 'r1',
      outcome: 'success',
      content: 'port: 9090',
      keyFields: { artifact_id: 'art_cfg' },
      durability: 'replayable',
    });
    expect(outcome.result.determinism?.contentHash).toMatch(/^[0-9a-f]{64}$/);
    expect(outcome.event).toMatchObject({ name: 'compaction_rehydrated', trigger: 'explicit' });
  });

  it('reads a confidential artifact only with the permission', async () => {
    const denied = await handleReadArtifact({ artifact_id: 'art_keys' }, context());
    expect(denied.result.outcome).toBe('failure');
    expect(denied.result.content).not.toContain('very-secret');
    expect(denied.event).toMatchObject({ reason: 'access_denied' });
    const allowed = await handleReadArtifact(
      { artifact_id: 'art_keys' },
      context({ securityContext: { ...SECURITY_CONTEXT, permissions: [ARTIFACT_PERMISSION_CONFIDENTIAL] } }),
    );
    expect(allowed.result.content).toBe('API_KEY=very-secret');
  });

  it('refuses other tenants, ids the plan does not know, and bad input', async () => {
    const tenant = await handleReadArtifact(
      { artifact_id: 'art_cfg' },
      context({ securityContext: { ...SECURITY_CONTEXT, tenantId: 'tenant-2' } }),
    );
    expect(tenant.result.outcome).toBe('failure');
    expect(tenant.result.content).not.toContain('9090');
    const unknown = await handleReadArtifact({ artifact_id: 'art_cfgx' }, context());
    expect(unknown.event.reason).toBe('unknown_artifact');
    const bad = await handleReadArtifact({ id: 'art_cfg' }, context());
    expect(bad.event.reason).toBe('invalid_input');
  });

  it('truncates to maxTokens when asked', async () => {
    const outcome = await handleReadArtifact(
      { artifact_id: 'art_big' },
      context({ maxTokens: 100, tokenizer: tokenizerFor('anthropic') }),
    );
    expect(outcome.result.outcome).toBe('partial');
    expect(tokenizerFor('anthropic').count(outcome.result.content as string)).toBeLessThanOrEqual(130);
    expect(outcome.event.truncated).toBe(true);
  });
});
