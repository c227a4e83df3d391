import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const cliDirectory = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Run `compactor ...` as a user would (a real process: `bin/compactor.js`, the bundle the test run
 * built once in its global set-up, ADR-0201; tsx cost a second more CPU per call), capturing output
 * and exit code.
 */
export function runCli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolvePromise) => {
    execFile(
      process.execPath,
      [join(cliDirectory, 'bin/compactor.js'), ...args],
      { cwd: cliDirectory, env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolvePromise({ code, stdout, stderr });
      },
    );
  });
}

/**
 * A hand-made Chat Completions transcript: a gardening assistant with a tool, 30 turns, an early
 * constraint the user states once.
 */
export async function writeChatTranscript(turns = 30): Promise<string> {
  const messages: unknown[] = [{ role: 'system', content: 'You are a gardening assistant.' }];
  messages.push({ role: 'user', content: 'I grow tomatoes in Oslo. Never suggest pesticides.' });
  messages.push({ role: 'assistant', content: 'Understood: organic methods only.' });
  for (let turn = 1; turn <= turns; turn += 1) {
    messages.push({
      role: 'user',
      content: `Question ${turn}: what should I do in week ${turn}? ${'Please be detailed. '.repeat(5)}`,
    });
    messages.push({
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: `call_${turn}`,
          type: 'function',
          function: { name: 'weather', arguments: JSON.stringify({ week: turn }) },
        },
      ],
    });
    messages.push({
      role: 'tool',
      tool_call_id: `call_${turn}`,
      content: `Week ${turn}: ${'sunny, 18C, light wind. '.repeat(30)}`,
    });
    messages.push({
      role: 'assistant',
      content: `In week ${turn}, water in the morning and check the leaves. ${'Keep the soil moist. '.repeat(10)}`,
    });
  }
  const directory = await mkdtemp(join(tmpdir(), 'compactor-cli-'));
  const file = join(directory, 'garden.json');
  await writeFile(file, JSON.stringify({ model: 'gpt-4o', messages }));
  return file;
}

const fillerTopics = ['the weather', 'a new recipe', 'weekend plans', 'a podcast', 'the garden', 'a film'];

/**
 * A hand-made LoCoMo-format file (not corpus data): one conversation of three sessions between
 * Alice (the user) and Bob, with filler turns and a few distinctive facts early and late, and QA
 * items pointing at them. Returns the file path.
 */
export async function writeLocomoFixture(): Promise<string> {
  const conversation: Record<string, unknown> = { speaker_a: 'Alice', speaker_b: 'Bob' };
  const facts: Record<string, string> = {
    'D1:3': 'I finally visited Zanzibar with my aunt Philippa last spring.',
    'D1:6': 'My new puppy is called Biscuit and she is a beagle.',
    'D3:40': 'I just signed up for a pottery class in Harrogate next month.',
  };
  for (let session = 1; session <= 3; session += 1) {
    conversation[`session_${session}_date_time`] = `1:56 pm on ${session + 7} May, 2023`;
    const turns: unknown[] = [];
    for (let turn = 1; turn <= 40; turn += 1) {
      const diaId = `D${session}:${turn}`;
      const speaker = turn % 2 === 1 ? 'Alice' : 'Bob';
      const topic = fillerTopics[(session * 7 + turn) % fillerTopics.length];
      const text =
        facts[diaId] ??
        `${speaker === 'Alice' ? 'Honestly' : 'Well'}, I keep thinking about ${topic}; it has been on my mind all week, and I wanted to hear what you think about it too (${diaId}).`;
      turns.push({
        speaker,
        dia_id: diaId,
        text,
        ...(diaId === 'D2:5'
          ? { img_url: ['https://example.com/cake.jpg'], blip_caption: 'a photo of a lemon cake' }
          : {}),
      });
    }
    conversation[`session_${session}`] = turns;
  }
  const qa = [
    {
      question: 'Where did Alice travel with her aunt Philippa?',
      answer: 'Zanzibar',
      evidence: ['D1:3'],
      category: 4,
    },
    {
      question: 'What is the name of the puppy Alice got?',
      answer: 'Biscuit',
      evidence: ['D1:6'],
      category: 4,
    },
    {
      question: 'Where is the pottery class Alice signed up for?',
      answer: 'Harrogate',
      evidence: ['D3:40'],
      category: 4,
    },
    { question: 'Did Alice go to Zanzibar?', answer: 'Yes', evidence: ['D1:3'], category: 1 },
    { question: 'What did Alice take up?', adversarial_answer: 'knitting', evidence: ['D3:40'], category: 5 },
  ];
  const directory = await mkdtemp(join(tmpdir(), 'compactor-locomo-fixture-'));
  const file = join(directory, 'locomo-fixture.json');
  await writeFile(file, JSON.stringify([{ sample_id: 'fixture-1', conversation, qa }]));
  return file;
}
