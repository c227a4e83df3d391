/** Entry point the packed-install test runs with Node: prints the loop's result as one JSON line. */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAgentLoop } from './agent-loop.js';

const dataDir = await mkdtemp(join(tmpdir(), 'compactor-consumer-data-'));
const result = await runAgentLoop(dataDir, Number(process.argv[2] ?? 40));
process.stdout.write(`${JSON.stringify(result)}\n`);
