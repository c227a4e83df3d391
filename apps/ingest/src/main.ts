import { pino } from 'pino';
import { loadIngestConfig } from './config/ingest-config.js';
import { startEmbeddedIngest } from './runtime/embedded-runtime.js';

// The configuration is read once, here; nothing below reads process.env.
const config = loadIngestConfig();
const logger = pino({ level: config.logLevel, name: 'compactor-ingest' });
const ingest = await startEmbeddedIngest(config, logger);
await ingest.app.listen({ port: config.port, host: config.host });

let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    ingest.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
}
