#!/usr/bin/env node
import { CompactorError } from '@compactor/core';
import { Command, CommanderError } from 'commander';
import { registerCommands } from './command-catalog.js';

const program = new Command('compactor')
  .description('Keep long LLM-agent conversations inside the context window.')
  .showHelpAfterError()
  .exitOverride();

try {
  await registerCommands(program, process.argv);
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) process.exit(error.exitCode);
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`compactor: ${message}\n`);
  if (CompactorError.isInstance(error)) {
    const issues = (error.details.issues as Array<{ path: string; message: string }> | undefined) ?? [];
    for (const issue of issues) process.stderr.write(`  ${issue.path}: ${issue.message}\n`);
  }
  process.exit(1);
}
