// Preloaded into the server under test (NODE_OPTIONS="--expose-gc --import=<this file>"): on
// SIGUSR2 it runs a full garbage collection and writes the process's memory use to stderr as one
// `MEMORY {...}` line, so a test can tell memory that is still referenced from garbage the
// collector had not got round to. It changes nothing else in the process.
process.on('SIGUSR2', () => {
  globalThis.gc?.();
  process.stderr.write(`MEMORY ${JSON.stringify(process.memoryUsage())}\n`);
});
