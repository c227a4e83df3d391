import {
  type Clock,
  type CommitResult,
  type CompactionPlan,
  type CurrentPlan,
  compactionPlanSchema,
  fieldIssuesFrom,
  NotFoundError,
  type PlanStore,
  type PlanVersionSummary,
  planAsStored,
  requireIds,
  ValidationError,
} from '@compactor/core';
import type { MongoClient, WriteConcernSettings } from 'mongodb';
import { duplicateKeyInfo } from './duplicate-key-error.js';
import type { MongoCollections } from './mongo-collections.js';
import type { PlanDocument } from './mongo-documents.js';
import { mapMongoError } from './mongo-error-mapping.js';
import { inTransaction } from './transactions.js';

/** What a MongoDB plan store needs. */
export interface MongoPlanStoreOptions {
  client: MongoClient;
  collections: MongoCollections;
  writeConcern: WriteConcernSettings;
  clock: Clock;
}

/** Thrown inside the commit transaction to abort it when the head moved; never leaves this file. */
class HeadMovedSignal extends Error {}

/**
 * Plans in MongoDB: one document per (tenant, thread, version), every version kept, and a
 * `planHeads` document per thread holding the current version. A commit is one transaction:
 * compare the head with the expected version, insert version expected+1 (unique index) and move
 * the head with a compare on the expected version. Whoever loses a race — a write conflict the
 * driver retries, or a duplicate key — re-reads the head and gets `committed: false`.
 */
export class MongoPlanStore implements PlanStore {
  /** @param options - Client, collections, write concern and clock. */
  constructor(private readonly options: MongoPlanStoreOptions) {}

  async getCurrent(tenantId: string, threadId: string): Promise<CurrentPlan> {
    requireIds({ tenantId, threadId });
    try {
      const version = await this.currentVersion(tenantId, threadId);
      if (version === 0) return { plan: null, version: 0 };
      const document = await this.options.collections.plans.findOne(
        { tenantId, threadId, version },
        { projection: { _id: 0 } },
      );
      return { plan: document?.plan ? planAsStored(document.plan) : null, version };
    } catch (error) {
      throw mapMongoError(error, 'getCurrent');
    }
  }

  commit(
    tenantId: string,
    threadId: string,
    plan: CompactionPlan,
    expectedVersion: number,
  ): Promise<CommitResult> {
    return this.commitVersion(tenantId, threadId, plan, expectedVersion, undefined);
  }

  async getVersion(tenantId: string, threadId: string, version: number): Promise<CompactionPlan | null> {
    requireIds({ tenantId, threadId });
    try {
      const document = await this.options.collections.plans.findOne(
        { tenantId, threadId, version },
        { projection: { _id: 0 } },
      );
      return document?.plan ? planAsStored(document.plan) : null;
    } catch (error) {
      throw mapMongoError(error, 'getVersion');
    }
  }

  async listVersions(tenantId: string, threadId: string): Promise<PlanVersionSummary[]> {
    requireIds({ tenantId, threadId });
    try {
      const documents = await this.options.collections.plans
        .find({ tenantId, threadId }, { projection: { _id: 0, plan: 0 } })
        .sort({ version: 1 })
        .toArray();
      return documents.map((document) => ({
        version: document.version,
        basedOnSeq: document.basedOnSeq,
        createdAt: document.createdAt,
        revertedFrom: document.revertedFrom,
      }));
    } catch (error) {
      throw mapMongoError(error, 'listVersions');
    }
  }

  async revertTo(
    tenantId: string,
    threadId: string,
    version: number,
    expectedVersion: number,
  ): Promise<CommitResult> {
    const earlier = await this.getVersion(tenantId, threadId, version);
    if (earlier === null) throw new NotFoundError('plan version', `${threadId}@${version}`);
    return this.commitVersion(tenantId, threadId, earlier, expectedVersion, version);
  }

  private async commitVersion(
    tenantId: string,
    threadId: string,
    plan: CompactionPlan,
    expectedVersion: number,
    revertedFrom: number | undefined,
  ): Promise<CommitResult> {
    requireIds({ tenantId, threadId });
    if (!Number.isInteger(expectedVersion) || expectedVersion < 0) {
      throw new ValidationError('invalid expectedVersion', [
        { path: 'expectedVersion', message: 'must be an integer ≥ 0' },
      ]);
    }
    const parsed = compactionPlanSchema.safeParse(plan);
    if (!parsed.success) {
      throw new ValidationError('invalid plan', fieldIssuesFrom(parsed.error.issues, 'plan'));
    }
    if (parsed.data.threadId !== threadId) {
      throw new ValidationError('the plan is for another thread', [
        { path: 'plan.threadId', message: `expected ${threadId}, got ${parsed.data.threadId}` },
      ]);
    }
    const version = expectedVersion + 1;
    const document: PlanDocument = {
      tenantId,
      threadId,
      version,
      basedOnSeq: parsed.data.basedOnSeq,
      // When this version was committed (a revert keeps the copied plan's own createdAt).
      createdAt: this.options.clock.now().toISOString(),
      ...(revertedFrom === undefined ? {} : { revertedFrom }),
      plan: { ...parsed.data, version },
    };
    try {
      return await inTransaction(this.options.client, this.options.writeConcern, async (session) => {
        const { plans, planHeads } = this.options.collections;
        const head = await planHeads.findOne({ tenantId, threadId }, { session });
        const current = head?.version ?? 0;
        if (current !== expectedVersion) return { committed: false, currentVersion: current };
        // A copy: insertOne adds an _id to what it is given, and the callback may run again.
        await plans.insertOne({ ...document }, { session, ignoreUndefined: true });
        const updatedAt = this.options.clock.now().toISOString();
        if (head === null) {
          await planHeads.insertOne({ tenantId, threadId, version, updatedAt }, { session });
        } else {
          const moved = await planHeads.updateOne(
            { tenantId, threadId, version: expectedVersion },
            { $set: { version, updatedAt } },
            { session },
          );
          if (moved.matchedCount !== 1) throw new HeadMovedSignal();
        }
        return { committed: true, version };
      });
    } catch (error) {
      if (!(error instanceof HeadMovedSignal) && duplicateKeyInfo(error) === null) {
        throw mapMongoError(error, 'commit');
      }
      // Another committer won between our read and our write.
      return { committed: false, currentVersion: await this.currentVersion(tenantId, threadId) };
    }
  }

  private async currentVersion(tenantId: string, threadId: string): Promise<number> {
    const head = await this.options.collections.planHeads.findOne(
      { tenantId, threadId },
      { projection: { _id: 0, version: 1 } },
    );
    return head?.version ?? 0;
  }
}
