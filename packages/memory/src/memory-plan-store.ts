import {
  type Clock,
  type CommitResult,
  type CompactionPlan,
  type CurrentPlan,
  compactionPlanSchema,
  NotFoundError,
  type PlanStore,
  type PlanVersionSummary,
  systemClock,
  ValidationError,
} from '@compactor/core';

interface ThreadPlans {
  plans: CompactionPlan[];
  versions: PlanVersionSummary[];
}

/** Plan versions in memory, committed with compare-and-set (ADR-0013); copies in and out. */
export class MemoryPlanStore implements PlanStore {
  private readonly threads = new Map<string, ThreadPlans>();

  constructor(private readonly clock: Clock = systemClock) {}

  async getCurrent(tenantId: string, threadId: string): Promise<CurrentPlan> {
    const plans = this.threads.get(key(tenantId, threadId));
    const current = plans?.plans.at(-1);
    return { plan: current ? structuredClone(current) : null, version: plans?.plans.length ?? 0 };
  }

  async commit(
    tenantId: string,
    threadId: string,
    plan: CompactionPlan,
    expectedVersion: number,
  ): Promise<CommitResult> {
    const result = compactionPlanSchema.safeParse(plan);
    if (!result.success) {
      throw new ValidationError(
        'invalid plan',
        result.error.issues.map((issue) => ({
          path: issue.path.map(String).join('.'),
          message: issue.message,
        })),
      );
    }
    if (result.data.threadId !== threadId) {
      throw new ValidationError(`the plan is for thread ${result.data.threadId}, not ${threadId}`, [
        { path: 'threadId', message: 'does not match the thread' },
      ]);
    }
    requireVersion(expectedVersion, 'expectedVersion');
    return this.write(tenantId, threadId, result.data, expectedVersion, undefined);
  }

  async getVersion(tenantId: string, threadId: string, version: number): Promise<CompactionPlan | null> {
    requireVersion(version, 'version');
    const plan = this.threads.get(key(tenantId, threadId))?.plans[version - 1];
    return plan ? structuredClone(plan) : null;
  }

  async listVersions(tenantId: string, threadId: string): Promise<PlanVersionSummary[]> {
    return (this.threads.get(key(tenantId, threadId))?.versions ?? []).map((summary) => ({ ...summary }));
  }

  async revertTo(
    tenantId: string,
    threadId: string,
    version: number,
    expectedVersion: number,
  ): Promise<CommitResult> {
    requireVersion(version, 'version');
    requireVersion(expectedVersion, 'expectedVersion');
    const earlier = this.threads.get(key(tenantId, threadId))?.plans[version - 1];
    if (version < 1 || !earlier) throw new NotFoundError('plan version', `${threadId}@${version}`);
    return this.write(tenantId, threadId, earlier, expectedVersion, version);
  }

  private write(
    tenantId: string,
    threadId: string,
    plan: CompactionPlan,
    expectedVersion: number,
    revertedFrom: number | undefined,
  ): CommitResult {
    const plans = this.threads.get(key(tenantId, threadId)) ?? { plans: [], versions: [] };
    if (plans.plans.length !== expectedVersion)
      return { committed: false, currentVersion: plans.plans.length };
    const version = plans.plans.length + 1;
    const stored = structuredClone({ ...plan, version });
    plans.plans.push(stored);
    plans.versions.push({
      version,
      basedOnSeq: stored.basedOnSeq,
      createdAt: this.clock.now().toISOString(),
      revertedFrom,
    });
    this.threads.set(key(tenantId, threadId), plans);
    return { committed: true, version };
  }
}

function key(tenantId: string, threadId: string): string {
  return `${tenantId}\u0000${threadId}`;
}

function requireVersion(value: number, field: string): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new ValidationError(`${field} must be a whole number of at least 0`, [
      { path: field, message: 'invalid' },
    ]);
  }
}
