import type { Command } from 'commander';

/**
 * Every `compactor` command, by name, with the one line `compactor --help` shows and a loader for
 * its module. Loading a command pulls in what it runs (Fastify, the stores, the SDKs), which costs
 * seconds, so the top-level help and the dispatcher load only the command that is asked for.
 * `command-catalog.unit.test.ts` checks each description against the command's own.
 */
export interface CatalogEntry {
  name: string;
  description: string;
  register(program: Command): Promise<void>;
}

export const commandCatalog: readonly CatalogEntry[] = [
  {
    name: 'serve',
    description:
      'run the ingest API and the compaction worker in one process (embedded store, or COMPACTOR_STORE=postgres with DATABASE_URL)',
    register: async (program) => (await import('./commands/serve-command.js')).registerServeCommand(program),
  },
  {
    name: 'replay',
    description:
      'import a transcript, replay it event by event with compaction running as the workers would, and report',
    register: async (program) => {
      const [{ registerReplayCommand }, { replayThroughServer }] = await Promise.all([
        import('./commands/replay-command.js'),
        import('./replay/replay-through-server.js'),
      ]);
      registerReplayCommand(program, replayThroughServer);
    },
  },
  {
    name: 'inspect',
    description: 'a thread at a glance: events, plan and token budget',
    register: async (program) =>
      (await import('./commands/inspect-command.js')).registerInspectCommand(program),
  },
  {
    name: 'eval',
    description:
      'run transcripts through compaction and the baselines at several context windows, and compare',
    register: async (program) => (await import('./commands/eval-command.js')).registerEvalCommand(program),
  },
  {
    name: 'bench',
    description: 'measure ingest, render, planning and tokenizer speed, each against its peer',
    register: async (program) => (await import('./commands/bench-command.js')).registerBenchCommand(program),
  },
];

/** The command a command line asks for: its first argument that is not an option (`help X` asks for X). */
export function requestedCommand(argv: readonly string[]): CatalogEntry | undefined {
  const words = argv.slice(2).filter((argument) => !argument.startsWith('-'));
  const name = words[0] === 'help' ? words[1] : words[0];
  return commandCatalog.find((entry) => entry.name === name);
}

/**
 * Register the asked-for command in full, and the others by name and description only (enough for
 * the top-level help and for commander's "unknown command" suggestions).
 */
export async function registerCommands(program: Command, argv: readonly string[]): Promise<void> {
  const requested = requestedCommand(argv);
  for (const entry of commandCatalog) {
    if (entry === requested) await entry.register(program);
    else program.command(entry.name).description(entry.description);
  }
}
