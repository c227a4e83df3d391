import { CompactorError } from '@compactor/core';
import { describe, expect, it } from 'vitest';
import { loadWorkerConfig } from '../src/index.js';

describe('loadWorkerConfig', () => {
  it('has no metrics listener unless a port is given', () => {
    expect(loadWorkerConfig({})).toEqual({
      metricsPort: undefined,
      metricsHost: '127.0.0.1',
      heapCompaction: { mode: 'every-full-gc', intervalMs: 300_000 },
    });
    expect(loadWorkerConfig({ COMPACTOR_WORKER_METRICS_PORT: '' })).toEqual({
      metricsPort: undefined,
      metricsHost: '127.0.0.1',
      heapCompaction: { mode: 'every-full-gc', intervalMs: 300_000 },
    });
    expect(
      loadWorkerConfig({ COMPACTOR_WORKER_METRICS_PORT: '9464', COMPACTOR_WORKER_METRICS_HOST: '0.0.0.0' }),
    ).toEqual({
      metricsPort: 9464,
      metricsHost: '0.0.0.0',
      heapCompaction: { mode: 'every-full-gc', intervalMs: 300_000 },
    });
  });

  it('compacts the heap on every full collection unless COMPACTOR_HEAP_COMPACTION says otherwise (ADR-0355, ADR-0395)', () => {
    expect(loadWorkerConfig({ COMPACTOR_HEAP_COMPACTION: '' }).heapCompaction.mode).toBe('every-full-gc');
    expect(loadWorkerConfig({ COMPACTOR_HEAP_COMPACTION: 'when-over-bounds' }).heapCompaction.mode).toBe(
      'when-over-bounds',
    );
    expect(loadWorkerConfig({ COMPACTOR_HEAP_COMPACTION: 'v8-default' }).heapCompaction.mode).toBe(
      'v8-default',
    );
    expect(
      loadWorkerConfig({
        COMPACTOR_HEAP_COMPACTION: 'when-fragmented',
        COMPACTOR_HEAP_COMPACTION_INTERVAL_SECONDS: '120',
      }).heapCompaction,
    ).toEqual({ mode: 'when-fragmented', intervalMs: 120_000 });
    expect(
      loadWorkerConfig({ COMPACTOR_HEAP_COMPACTION_INTERVAL_SECONDS: '' }).heapCompaction.intervalMs,
    ).toBe(300_000);
    expect(() => loadWorkerConfig({ COMPACTOR_HEAP_COMPACTION: 'off' })).toThrow(
      'COMPACTOR_HEAP_COMPACTION must be one of every-full-gc, when-over-bounds, when-fragmented, v8-default',
    );
  });

  it.each(['0', '-5', '1.5', '60s', 'soon', '86401'])(
    'rejects COMPACTOR_HEAP_COMPACTION_INTERVAL_SECONDS=%s, naming it and the range',
    (value) => {
      let caught: unknown;
      try {
        loadWorkerConfig({ COMPACTOR_HEAP_COMPACTION_INTERVAL_SECONDS: value });
      } catch (error) {
        caught = error;
      }
      expect(CompactorError.hasCode(caught, 'validation')).toBe(true);
      expect((caught as Error).message).toContain(
        'COMPACTOR_HEAP_COMPACTION_INTERVAL_SECONDS must be a whole number of seconds from 1 to 86400',
      );
    },
  );

  it.each(['http', '70000', '-1'])('rejects COMPACTOR_WORKER_METRICS_PORT=%s, naming it', (value) => {
    let caught: unknown;
    try {
      loadWorkerConfig({ COMPACTOR_WORKER_METRICS_PORT: value });
    } catch (error) {
      caught = error;
    }
    expect(CompactorError.hasCode(caught, 'validation')).toBe(true);
    expect((caught as Error).message).toContain('COMPACTOR_WORKER_METRICS_PORT must be a port number');
  });
});
