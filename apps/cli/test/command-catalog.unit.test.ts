import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { commandCatalog, registerCommands, requestedCommand } from '../src/command-catalog.js';

describe('command catalog', () => {
  it('describes each command as the command itself does', async () => {
    for (const entry of commandCatalog) {
      const program = new Command('compactor');
      await entry.register(program);
      const registered = program.commands.find((command) => command.name() === entry.name);
      expect(registered?.description(), entry.name).toBe(entry.description);
    }
  }, 60_000);

  it('loads only the command asked for, and `help X` asks for X', async () => {
    expect(requestedCommand(['node', 'compactor', '--help'])).toBeUndefined();
    expect(requestedCommand(['node', 'compactor', 'replay', 'file.json'])?.name).toBe('replay');
    expect(requestedCommand(['node', 'compactor', 'help', 'inspect'])?.name).toBe('inspect');
    const program = new Command('compactor');
    await registerCommands(program, ['node', 'compactor', 'bench', '--quick']);
    const options = (name: string) => program.commands.find((command) => command.name() === name)!.options;
    expect(options('bench').map((option) => option.long)).toContain('--quick');
    expect(options('serve')).toHaveLength(0);
    expect(program.commands.map((command) => command.name())).toEqual(
      commandCatalog.map((entry) => entry.name),
    );
  }, 60_000);
});
