import type { CompactionPlan, Thread, ToolDefinition } from '@compactor/core';
import { type ThreadBuilderOptions, threadBuilder } from '@compactor/testkit/thread-builder';
import { MemoryArtifactStore } from './memory-artifact-store.js';
import { abridge, clear, drop, externalize, ids, planOf, summarize } from './plans.js';

export const SYSTEM_PROMPT = 'You are a careful DevOps agent. Explain what you do.';

export const TOOLS: ToolDefinition[] = [
  {
    name: 'bash',
    description: 'Run a shell command.',
    inputSchema: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
  },
  {
    name: 'read_file',
    description: 'Read a file.',
    inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
];

export const TENANT = 'tenant-1';
export const SECURITY_CONTEXT = {
  requesterId: 'agent-runtime',
  tenantId: TENANT,
  permissions: [] as string[],
};

const DEPLOY_LOG = Array.from(
  { length: 40 },
  (_, index) => `2025-01-01T10:${String(index).padStart(2, '0')}:00Z deploy step ${index} ok`,
).join('\n');

/** A small coding session: 4 turns, 5 tool calls (one batched pair), a pinned user constraint, a system message. */
export function deploySession(
  extra?: (builder: ReturnType<typeof threadBuilder>) => void,
  options: ThreadBuilderOptions = {},
) {
  const builder = threadBuilder('deploy', { tenantId: TENANT, ...options })
    .system('The repository is checked out at /srv/app.')
    .user('The deploy is failing; find out why. Never touch production data.', { pinned: true })
    .assistant('Let me look at the logs.', {
      toolCalls: [{ id: 'c1', name: 'bash', input: { command: 'tail -n 40 deploy.log' } }],
    })
    .toolResult('c1', `${DEPLOY_LOG}\nERROR: health check failed on port 8080`, {
      durability: 'ephemeral',
      keyFields: { exit_code: 0 },
    })
    .assistant('Reading the config.', {
      toolCalls: [{ id: 'c2', name: 'read_file', input: { path: 'config/deploy.yml' } }],
    })
    .toolResult('c2', 'service:\n  port: 8080\nhealthcheck:\n  path: /health', {
      durability: 'replayable',
      keyFields: { path: 'config/deploy.yml' },
    })
    .assistant('The deploy checks port 8080 but the service listens on 9090.')
    .user('Fix it and open a ticket.')
    .assistant(undefined, {
      toolCalls: [
        { id: 'c3', name: 'edit_file', input: { path: 'config/deploy.yml', replace: { '8080': '9090' } } },
        { id: 'c4', name: 'create_ticket', input: { title: 'Deploy health check port' } },
      ],
    });
  // Both results in one tool message (Anthropic style).
  builder.message({
    id: 'm10',
    role: 'tool',
    content: [
      {
        type: 'tool_result',
        toolName: 'edit_file',
        toolCallId: 'c3',
        outcome: 'success',
        content: 'edited 1 line',
        keyFields: { path: 'config/deploy.yml' },
      },
      {
        type: 'tool_result',
        toolName: 'create_ticket',
        toolCallId: 'c4',
        outcome: 'success',
        content: { ticket: 'OPS-42', url: 'https://tickets.example.com/OPS-42' },
        keyFields: { ticket: 'OPS-42' },
        durability: 'anchoring',
      },
    ],
  });
  builder
    .assistant('Fixed the port and opened OPS-42.', { id: 'm11' })
    .user('Great. What was the ticket number again?', { id: 'm12' })
    .assistant('It was OPS-42.', { id: 'm13' })
    .user('Now run the tests.', { id: 'm14' })
    .assistant(undefined, {
      id: 'm15',
      toolCalls: [{ id: 'c5', name: 'bash', input: { command: 'npm test' } }],
    })
    .toolResult('c5', 'Test Suites: 7 passed\nTests: 42 passed', {
      id: 'm16',
      durability: 'ephemeral',
      keyFields: { passed: 42 },
    })
    .assistant('All 42 tests pass.', { id: 'm17' });
  extra?.(builder);
  return builder.build();
}

const turnOneSummary = {
  currentTask: 'Find why the deploy fails',
  facts: [{ text: 'Never touch production data', pinned: true }],
  decisions: [{ decision: 'Inspect the deploy log and config first', turn: 1 }],
  toolOutcomes: [
    { toolName: 'bash', toolCallId: 'c1', outcome: 'success' as const, keyFields: { exit_code: 0 } },
    {
      toolName: 'read_file',
      toolCallId: 'c2',
      outcome: 'success' as const,
      keyFields: { path: 'config/deploy.yml' },
    },
  ],
  filesRead: ['config/deploy.yml'],
};

const turnTwoSummary = {
  currentTask: 'Fix the health check port',
  decisions: [
    { decision: 'Change the health check port to 9090', rationale: 'the service listens on 9090', turn: 2 },
  ],
  toolOutcomes: [
    {
      toolName: 'create_ticket',
      toolCallId: 'c4',
      outcome: 'success' as const,
      keyFields: { ticket: 'OPS-42' },
    },
  ],
  filesModified: ['config/deploy.yml'],
};

const logSummary = {
  facts: [{ text: 'The deploy log ends with a failed health check on port 8080' }],
  toolOutcomes: [
    { toolName: 'bash', toolCallId: 'c1', outcome: 'success' as const, keyFields: { exit_code: 0 } },
  ],
};

export interface RenderFixture {
  name: string;
  thread: Thread;
  plan: CompactionPlan | null;
  store?: MemoryArtifactStore;
}

export function renderFixtures(): RenderFixture[] {
  const base = deploySession().thread;
  const fixtures: RenderFixture[] = [
    {
      name: 'summaries',
      thread: base,
      plan: planOf(base, [
        summarize(base, ids(2, 7), turnOneSummary),
        summarize(base, ids(8, 11), turnTwoSummary),
      ]),
    },
    {
      name: 'externalizations',
      thread: base,
      plan: planOf(base, [
        externalize(base, ids(3, 4), 'art_deploylog', logSummary, 'read it for exact timestamps'),
      ]),
    },
    {
      // The planner's externalize rung: one tool result to the artifact store, in place after its call.
      name: 'externalized-result',
      thread: base,
      plan: planOf(base, [
        externalize(base, ['m4'], 'art_deploylog', logSummary, 'read it for exact timestamps'),
      ]),
    },
    { name: 'clears', thread: base, plan: planOf(base, [clear(base, ['m4', 'm6']), clear(base, ['m16'])]) },
    { name: 'drops', thread: base, plan: planOf(base, [drop(base, ids(12, 13), 'small talk')]) },
    {
      name: 'overlaps',
      thread: base,
      // Drop > Externalize > Summarize > Clear: m5–m6 go to the pointer, m4/m6 clears lose, m12–m13 vanish.
      plan: planOf(base, [
        clear(base, ['m4', 'm6']),
        summarize(base, ids(2, 7), turnOneSummary),
        externalize(base, ids(5, 6), 'art_config', { filesRead: ['config/deploy.yml'] }),
        drop(base, ids(12, 13)),
        summarize(base, ids(12, 13), { facts: [{ text: 'Asked for the ticket number' }] }),
      ]),
    },
    {
      name: 'opening-summary',
      thread: base,
      plan: planOf(base, [summarize(base, ids(1, 7), turnOneSummary)]),
    },
    {
      name: 'orphan-repair',
      thread: base,
      // A hand-made plan that splits exchanges: m5 (call) summarized without m6 (result); m10 (results) dropped without m9.
      plan: planOf(base, [
        summarize(base, ['m5'], { facts: [{ text: 'Read the config' }] }),
        drop(base, ['m10']),
      ]),
    },
  ];

  const staleThread = base;
  const planSeq = staleThread.messages.find((message) => message.id === 'm11')!.seq;
  fixtures.push({
    name: 'stale-plan',
    thread: staleThread,
    plan: planOf(
      staleThread,
      [summarize(staleThread, ids(2, 7), turnOneSummary), clear(staleThread, ['m10'])],
      {
        basedOnSeq: planSeq,
      },
    ),
  });

  const withReference = deploySession((builder) => {
    builder.user('Check the timestamps around the failure.', { id: 'm18' });
    builder.assistant(
      'I need artifact:art_deploylog to compare timestamps (art_deploylog2 does not exist).',
      {
        id: 'm19',
      },
    );
  }).thread;
  const store = new MemoryArtifactStore();
  store.add('art_deploylog', `${DEPLOY_LOG}\nERROR: health check failed on port 8080`, {
    threadId: 'deploy',
    tenantId: TENANT,
    sensitivity: 'internal',
  });
  fixtures.push({
    name: 'rehydration',
    thread: withReference,
    plan: planOf(withReference, [
      externalize(withReference, ids(3, 4), 'art_deploylog', logSummary, 'exact timestamps'),
    ]),
    store,
  });

  fixtures.push({ name: 'edge-cases', thread: edgeCaseThread(), plan: null });

  // ADR-0265/0266: an old photo by its caption, an old PDF by its title, a pasted log clipped in place.
  const media = mediaThread();
  fixtures.push({
    name: 'abridged',
    thread: media,
    plan: planOf(media, [
      abridge(media, 'photo'),
      abridge(media, 'paste', 'art_pastedlog'),
      abridge(media, 'pdf'),
    ]),
  });
  // ADR-0311: a tool's screenshot and a URL image inside results, as logged, then with their media abridged.
  const screens = screenshotThread();
  fixtures.push({ name: 'tool-result-media', thread: screens, plan: null });
  fixtures.push({
    name: 'abridged-result-media',
    thread: screens,
    plan: planOf(screens, [abridge(screens, 'shot1', undefined, 3, ['art_screenshot'])]),
  });
  // ADR-0310: an abridged inline photo read back by read_artifact, as an image inside the result.
  const readBack = rehydratedImageThread();
  fixtures.push({
    name: 'rehydrated-image',
    thread: readBack,
    plan: planOf(readBack, [abridge(readBack, 'photo', undefined, 3, ['art_photo'])]),
  });
  return fixtures;
}

/** A 1×1 PNG, base64. */
export const TINY_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/** A browser agent's turn: two screenshots in tool results (inline, then by URL), then a new request. */
export function screenshotThread(): Thread {
  const builder = threadBuilder('screens', {
    tenantId: TENANT,
    policy: { keepRecentTurns: 1, keepRecentTokens: 0 },
  })
    .user('Log in to the dashboard and tell me what you see.', { id: 'u1' })
    .assistant('Taking a screenshot.', {
      id: 'a1',
      toolCalls: [{ id: 's1', name: 'screenshot', input: {} }],
    })
    .toolResult('s1', 'Captured 1280x800.', {
      id: 'shot1',
      media: [{ type: 'image', mediaType: 'image/png', source: { kind: 'base64', data: TINY_PNG } }],
    })
    .assistant('Opening the reports page.', {
      id: 'a2',
      toolCalls: [{ id: 's2', name: 'screenshot', input: { page: 'reports' } }],
    })
    .toolResult('s2', 'Captured the reports page.', {
      id: 'shot2',
      media: [
        {
          type: 'image',
          mediaType: 'image/png',
          source: { kind: 'url', url: 'https://example.com/reports.png' },
        },
      ],
    })
    .assistant('The dashboard shows a login form; the reports page lists three reports.', { id: 'a3' })
    .user('Thanks. Now open the settings.', { id: 'u2' });
  return builder.build().thread;
}

/** An inline photo, abridged, then read back by the model's read_artifact call (the handler's answer). */
export function rehydratedImageThread(): Thread {
  return threadBuilder('readback', { tenantId: TENANT, policy: { keepRecentTurns: 1, keepRecentTokens: 0 } })
    .message({
      id: 'photo',
      role: 'user',
      content: [
        { type: 'text', text: 'Here is the wiring diagram.' },
        { type: 'image', mediaType: 'image/png', source: { kind: 'base64', data: TINY_PNG } },
      ],
    })
    .assistant('Noted: two workers behind a load balancer.', { id: 'a1' })
    .user('Which port did the diagram show for the second worker?', { id: 'u2' })
    .assistant('Let me look at the diagram again.', {
      id: 'a2',
      toolCalls: [{ id: 'r1', name: 'read_artifact', input: { artifact_id: 'art_photo' } }],
    })
    .toolResult('r1', '[Image read back: art_photo (image/png)]', {
      id: 'read1',
      keyFields: { artifact_id: 'art_photo' },
      durability: 'replayable',
      media: [{ type: 'image', mediaType: 'image/png', source: { kind: 'base64', data: TINY_PNG } }],
    })
    .build().thread;
}

/** A 3-turn chat: a captioned photo (LoCoMo's `blipCaption`), a pasted log, a PDF; then a new photo. */
export function mediaThread(keepRecentTurns = 1, keepRecentTokens = 0): Thread {
  const log = Array.from(
    { length: 40 },
    (_, index) => `2025-01-01T10:${String(index).padStart(2, '0')}:00Z INFO deploy step ${index} ok`,
  );
  log.push('2025-01-01T10:40:00Z ERROR health check failed on port 8080');
  const builder = threadBuilder('media', { policy: { keepRecentTurns, keepRecentTokens } });
  builder.message({
    id: 'photo',
    role: 'user',
    metadata: { blipCaption: 'a photo of a whiteboard with a deployment diagram' },
    content: [
      { type: 'text', text: 'This is how the deploy is wired.' },
      {
        type: 'image',
        mediaType: 'image/jpeg',
        source: { kind: 'url', url: 'https://example.com/board.jpg' },
      },
    ],
  });
  builder.assistant('Thanks, I see the load balancer in front of two workers.', { id: 'a1' });
  builder.message({
    id: 'paste',
    role: 'user',
    content: [
      {
        type: 'text',
        text: `The deploy failed. Here is the log:\n${log.join('\n')}\nPlease never restart the database.`,
      },
    ],
  });
  builder.assistant('The health check on port 8080 failed at 10:40.', { id: 'a2' });
  builder.message({
    id: 'pdf',
    role: 'user',
    content: [
      { type: 'text', text: 'And the runbook.' },
      {
        type: 'document',
        mediaType: 'application/pdf',
        title: 'Runbook v3',
        source: { kind: 'base64', data: 'JVBERi0xLjQK'.repeat(64) },
      },
    ],
  });
  builder.assistant('Read the runbook.', { id: 'a3' });
  builder.message({
    id: 'photo2',
    role: 'user',
    content: [
      { type: 'text', text: 'Now it looks like this.' },
      {
        type: 'image',
        mediaType: 'image/png',
        source: { kind: 'url', url: 'https://example.com/board2.png' },
      },
    ],
  });
  return builder.build().thread;
}

/**
 * What real logs contain and providers reject: an orphan result, a reused call id, an id with
 * characters Anthropic refuses, signed and unsigned reasoning, an image, an artifact-held image,
 * a subagent's messages, a mid-thread system message and a call still pending at the end.
 */
export function edgeCaseThread(): Thread {
  const builder = threadBuilder('edges', { tenantId: TENANT })
    .user('Look at this screenshot and list the files.', { id: 'm1' })
    .message({
      id: 'm2',
      role: 'user',
      content: [
        {
          type: 'image',
          mediaType: 'image/png',
          source: { kind: 'url', url: 'https://example.com/shot.png' },
        },
        { type: 'image', mediaType: 'image/png', source: { kind: 'artifact', artifactId: 'art_shot' } },
        { type: 'text', text: '   ' },
      ],
    })
    .message({
      id: 'm3',
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'The user wants a listing.', signature: 'sig-abc' },
        { type: 'reasoning', text: 'unsigned thoughts' },
        { type: 'text', text: 'Listing.' },
        { type: 'tool_call', id: 'functions.list:0', name: 'list_dir', input: { path: '.' } },
      ],
    })
    .toolResult('functions.list:0', 'a.txt\nb.txt', {
      id: 'm4',
      toolName: 'list_dir',
      durability: 'ephemeral',
    })
    .toolResult('ghost', 'a result whose call is not in the log', { id: 'm5', toolName: 'bash' })
    .message({
      id: 'm6',
      role: 'assistant',
      content: [{ type: 'reasoning', text: 'only thinking, unsigned' }],
    })
    .assistant('Again.', { id: 'm7', toolCalls: [{ id: 'call_0', name: 'list_dir', input: { path: 'a' } }] })
    .toolResult('call_0', '', { id: 'm8', toolName: 'list_dir' })
    .assistant('And again.', {
      id: 'm9',
      toolCalls: [{ id: 'call_0', name: 'list_dir', input: { path: 'b' } }],
    })
    .toolResult('call_0', 'b1.txt', { id: 'm10', toolName: 'list_dir', outcome: 'failure' })
    .user('Delegate a search to a helper.', { id: 'm11' })
    .user('Search for TODOs.', { id: 'm12', subagentId: 'helper' })
    .assistant('Found 3 TODOs.', { id: 'm13', subagentId: 'helper' })
    .system('Reminder: the user is on a slow connection.', { id: 'm14' })
    .assistant('The helper found 3 TODOs. Running one more listing.', {
      id: 'm15',
      toolCalls: [{ id: 'c9', name: 'list_dir', input: 'src' }],
    });
  return builder.build().thread;
}
