import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const cliDirectory = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Run `compactor ...` as a user would (a real process through tsx), capturing output and exit code. */
export function runCli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolvePromise) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', join(cliDirectory, 'src/main.ts'), ...args],
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
