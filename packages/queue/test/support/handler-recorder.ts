import type { CompactionCheckJob } from '@compactor/core';
import type {
  CompactionJobContext,
  CompactionJobFinishedEvent,
  CompactionJobHandler,
  CompactionJobResult,
} from '../../src/index.js';

export interface RecordedCall {
  job: CompactionCheckJob;
  context: CompactionJobContext;
  startedAt: number;
}

/**
 * Records every handler call and every finished-event, tracks how many calls run at once, and lets
 * a test decide what each call does.
 */
export class HandlerRecorder {
  readonly calls: RecordedCall[] = [];
  readonly events: CompactionJobFinishedEvent[] = [];
  active = 0;
  maxActive = 0;
  private behaviour: (call: RecordedCall) => Promise<CompactionJobResult> = async () => ({
    status: 'unchanged',
  });

  readonly handler: CompactionJobHandler = async (job, context) => {
    const call = { job, context, startedAt: Date.now() };
    this.calls.push(call);
    this.active += 1;
    this.maxActive = Math.max(this.maxActive, this.active);
    try {
      return await this.behaviour(call);
    } finally {
      this.active -= 1;
    }
  };

  readonly onJobFinished = (event: CompactionJobFinishedEvent): void => {
    this.events.push(event);
  };

  behave(behaviour: (call: RecordedCall) => Promise<CompactionJobResult>): this {
    this.behaviour = behaviour;
    return this;
  }

  callsFor(threadId: string): RecordedCall[] {
    return this.calls.filter((call) => call.job.threadId === threadId);
  }
}
