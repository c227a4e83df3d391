import { type CompactionCheckJob, CompactorError, type JobQueue, ValidationError } from '@compactor/core';
import { describe, expect, it } from 'vitest';
import { CircuitBreakingJobQueue, type CircuitState } from '../src/index.js';
import { sleep, waitUntil } from './support/wait.js';

const job: CompactionCheckJob = { tenantId: 't', threadId: 'x', version: 1, reason: 'append' };

/** A queue whose server can be "up" or "down", counting what reached it. */
class SwitchableQueue implements JobQueue {
  up = true;
  received = 0;
  failWith: Error | undefined;
  async enqueueCompactionCheck(): Promise<void> {
    this.received += 1;
    if (this.failWith) throw this.failWith;
    if (!this.up) throw new Error('connect ECONNREFUSED');
  }
  async close(): Promise<void> {}
}

describe('CircuitBreakingJobQueue', () => {
  it('opens on a failed enqueue, fails fast without touching the queue, and closes after a probe succeeds', async () => {
    const inner = new SwitchableQueue();
    const states: CircuitState[] = [];
    let probes = 0;
    const breaker = new CircuitBreakingJobQueue(inner, {
      probe: async () => {
        probes += 1;
        if (!inner.up) throw new Error('still down');
      },
      backoff: { initialDelayMs: 40, maxDelayMs: 160, probeTimeoutMs: 100 },
      onStateChange: (state) => states.push(state),
    });
    await breaker.enqueueCompactionCheck(job);
    inner.up = false;
    await expect(breaker.enqueueCompactionCheck(job)).rejects.toThrow(/ECONNREFUSED/);
    expect(breaker.state).toBe('open');
    const reached = inner.received;
    for (let attempt = 0; attempt < 20; attempt += 1) {
      const error = await breaker.enqueueCompactionCheck(job).catch((caught: unknown) => caught);
      expect(CompactorError.hasCode(error, 'unavailable')).toBe(true);
      expect((error as CompactorError).isRetryable).toBe(true);
    }
    expect(inner.received).toBe(reached);

    // Probes back off while the queue stays down: 40, 80, 160, 160 ms ...
    await sleep(400);
    expect(probes).toBeGreaterThanOrEqual(2);
    expect(probes).toBeLessThanOrEqual(5);
    inner.up = true;
    await waitUntil(() => breaker.state === 'closed', 'the circuit to close', 2_000);
    await breaker.enqueueCompactionCheck(job);
    expect(inner.received).toBe(reached + 1);
    expect(states[0]).toBe('open');
    expect(states).toContain('half-open');
    expect(states.at(-1)).toBe('closed');
    await breaker.close();
  });

  it('stays closed on a validation error, which says nothing about the queue', async () => {
    const inner = new SwitchableQueue();
    inner.failWith = new ValidationError('bad job');
    const breaker = new CircuitBreakingJobQueue(inner, { probe: async () => {} });
    await expect(breaker.enqueueCompactionCheck(job)).rejects.toThrow(/bad job/);
    expect(breaker.state).toBe('closed');
    await breaker.close();
  });

  it('counts a probe that never answers as failed, and stops probing once closed', async () => {
    const inner = new SwitchableQueue();
    inner.up = false;
    let probes = 0;
    const breaker = new CircuitBreakingJobQueue(inner, {
      probe: () => {
        probes += 1;
        return new Promise<void>(() => {});
      },
      backoff: { initialDelayMs: 20, maxDelayMs: 20, probeTimeoutMs: 30 },
    });
    await breaker.enqueueCompactionCheck(job).catch(() => {});
    await waitUntil(() => probes >= 2, 'a second probe after the first timed out', 2_000);
    expect(breaker.state).not.toBe('closed');
    await breaker.close();
    const after = probes;
    await sleep(150);
    expect(probes).toBe(after);
  });
});
