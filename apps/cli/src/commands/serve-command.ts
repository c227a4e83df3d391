import { applyHeapCompaction, loadIngestConfig, startIngestServer } from '@compactor/ingest';
import { createRuntime, loadRuntimeConfig, type RuntimeConfig } from '@compactor/runtime';
import type { Command } from 'commander';
import { pino } from 'pino';
import { DEV_API_KEY_FILE, loadOrCreateDevApiKey } from './dev-api-key.js';
import { parsePort } from './option-parsers.js';
import { terminalLogDestination } from './terminal-log.js';

interface ServeOptions {
  dataDir?: string;
  port: number;
  host: string;
}

/**
 * `compactor serve`: the ingest API and the compaction worker in one process, on the in-process
 * queue; the embedded store unless COMPACTOR_STORE says otherwise (`postgres` with DATABASE_URL is
 * the simplest production-like set-up); the extractive summarizer unless ANTHROPIC_API_KEY is set.
 */
export function registerServeCommand(program: Command): void {
  program
    .command('serve')
    .description(
      'run the ingest API and the compaction worker in one process (embedded store, or COMPACTOR_STORE=postgres with DATABASE_URL)',
    )
    .option(
      '--data-dir <dir>',
      'where artifacts (and, on the embedded store, events and plans) live (default: COMPACTOR_DATA_DIR or ./.compactor)',
    )
    .option('--port <port>', 'port to listen on (0 = any free port)', parsePort, 8080)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .action(async (options: ServeOptions) => {
      const environment = { ...process.env };
      const runtimeConfig = loadRuntimeConfig({
        ...environment,
        COMPACTOR_ARTIFACTS: 'embedded',
        COMPACTOR_QUEUE: 'in-process',
        ...(options.dataDir ? { COMPACTOR_DATA_DIR: options.dataDir } : {}),
      });
      // The development key lives in the data directory, so it survives restarts.
      const devKey = environment.COMPACTOR_API_KEYS
        ? undefined
        : await loadOrCreateDevApiKey(runtimeConfig.dataDir);
      if (devKey) environment.COMPACTOR_API_KEYS = `${devKey}=local`;
      const ingestConfig = loadIngestConfig({
        ...environment,
        PORT: String(options.port),
        HOST: options.host,
      });
      // Before the runtime allocates anything, as the ingest and worker entries do (ADR-0355, ADR-0395).
      const heap = applyHeapCompaction(ingestConfig.heapCompaction);
      // Logs go to stderr; stdout carries only what a person needs to start.
      // On a terminal: short lines, no per-request chatter. Anywhere else: JSON lines.
      const logger = pino(
        { level: runtimeConfig.logLevel, name: 'compactor' },
        process.stderr.isTTY ? terminalLogDestination() : pino.destination(2),
      );
      logger.debug(
        {
          heapCompaction: ingestConfig.heapCompaction.mode,
          heapCompactionIntervalMs: ingestConfig.heapCompaction.intervalMs,
          v8Flags: heap.v8Flags,
        },
        'heap compaction',
      );
      heap.onEvent((event) => logger.debug(event, 'heap compaction'));
      const runtime = await createRuntime(runtimeConfig, { logger });
      const server = await startIngestServer({ runtime, ingest: ingestConfig, logger, runWorker: true });
      const address = await server.app.listen({ port: ingestConfig.port, host: ingestConfig.host });
      // Ready, nothing served yet: what the heap holds now is the baseline its budget counts from (ADR-0425).
      logger.debug(heap.setBudget(server.cacheMaxBytes), 'heap budget');
      const lines = [
        `Compactor listening on ${address}`,
        `${storeLine(runtimeConfig)}; summarizer: ${runtimeConfig.summarizer.kind === 'anthropic' ? 'Anthropic (with extractive fallback)' : 'extractive (set ANTHROPIC_API_KEY for Claude)'}`,
        devKey
          ? `dev API key (tenant "local", kept in ${runtimeConfig.dataDir}/${DEV_API_KEY_FILE}): ${devKey}   — set COMPACTOR_API_KEYS="key=tenant,..." to choose your own`
          : `API keys: from COMPACTOR_API_KEYS (${ingestConfig.apiKeys.size})`,
        `try: curl -H "Authorization: Bearer ${devKey ?? '<key>'}" ${address}/v1/threads -d '{"model":"claude-sonnet-4-5"}' -H 'content-type: application/json'`,
        `inspector: ${address}/ui/   OpenAPI: ${address}/openapi.json   metrics: ${address}/metrics   stop: Ctrl-C`,
      ];
      process.stdout.write(`${lines.join('\n')}\n`);
      await new Promise<void>((resolve) => {
        let stopping = false;
        for (const signal of ['SIGTERM', 'SIGINT'] as const) {
          process.on(signal, () => {
            if (stopping) process.exit(1);
            stopping = true;
            logger.info({ signal }, 'shutting down');
            server.close().then(resolve, (error: unknown) => {
              logger.error({ err: error }, 'shutdown failed');
              process.exit(1);
            });
          });
        }
      });
    });
}

/** Where events and plans live, as the start-up lines tell a person (no credentials). */
function storeLine(config: RuntimeConfig): string {
  if (config.store.kind === 'postgres')
    return `store: PostgreSQL (schema ${config.store.schema}); artifacts: ${config.dataDir}`;
  if (config.store.kind === 'mongo')
    return `store: MongoDB (database ${config.store.dbName}); artifacts: ${config.dataDir}`;
  return `data directory: ${config.dataDir}`;
}
