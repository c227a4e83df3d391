import { CompactorError } from '@compactor/core';
import { describe, expect, it } from 'vitest';
import { loadWorkerConfig } from '../src/index.js';

describe('loadWorkerConfig', () => {
  it('has no metrics listener unless a port is given', () => {
    expect(loadWorkerConfig({})).toEqual({
      metricsPort: undefined,
      metricsHost: '127.0.0.1',
      heapCompaction: 'every-full-gc',
    });
    expect(loadWorkerConfig({ COMPACTOR_WORKER_METRICS_PORT: '' })).toEqual({
      metricsPort: undefined,
      metricsHost: '127.0.0.1',
      heapCompaction: 'every-full-gc',
    });
    expect(
      loadWorkerConfig({ COMPACTOR_WORKER_METRICS_PORT: '9464', COMPACTOR_WORKER_METRICS_HOST: '0.0.0.0' }),
    ).toEqual({ metricsPort: 9464, metricsHost: '0.0.0.0', heapCompaction: 'every-full-gc' });
  });

  it('compacts the heap on every full collection unless COMPACTOR_HEAP_COMPACTION=v8-default (ADR-0355)', () => {
    expect(loadWorkerConfig({ COMPACTOR_HEAP_COMPACTION: '' }).heapCompaction).toBe('every-full-gc');
    expect(loadWorkerConfig({ COMPACTOR_HEAP_COMPACTION: 'v8-default' }).heapCompaction).toBe('v8-default');
    let caught: unknown;
    try {
      loadWorkerConfig({ COMPACTOR_HEAP_COMPACTION: 'off' });
    } catch (error) {
      caught = error;
    }
    expect(CompactorError.hasCode(caught, 'validation')).toBe(true);
    expect((caught as Error).message).toContain(
      'COMPACTOR_HEAP_COMPACTION must be one of every-full-gc, v8-default',
    );
  });

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
