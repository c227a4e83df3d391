import { spawn } from 'node:child_process';
import type { HeapCompaction } from '@compactor/ingest';
import type { ManyThreadsResult, ManyThreadsRunner, ScalingSizes } from './scaling-benchmark.js';

/** What the parent passes to `compactor bench --many-threads <json>`. */
export interface ManyThreadsRequest {
  heapCompaction: HeapCompaction;
  sizes: ScalingSizes['manyThreads'];
}

/**
 * Run the many-threads phase in a fresh `compactor` process (this process's own entry, with no
 * Node or V8 flags of this one's, so `v8-default` is V8's default), read its JSON result.
 *
 * @param entry - The script this process was started with (`bin/compactor.js`).
 */
export function manyThreadsInFreshProcess(entry: string): ManyThreadsRunner {
  return (heapCompaction, sizes) =>
    new Promise<ManyThreadsResult>((resolve, reject) => {
      const request: ManyThreadsRequest = { heapCompaction, sizes };
      const child = spawn(process.execPath, [entry, 'bench', '--many-threads', JSON.stringify(request)], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let output = '';
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk: string) => {
        output += chunk;
      });
      child.once('error', reject);
      child.once('exit', (code) => {
        if (code !== 0)
          return reject(new Error(`the many-threads process (${heapCompaction}) exited with ${code}`));
        resolve(JSON.parse(output) as ManyThreadsResult);
      });
    });
}
