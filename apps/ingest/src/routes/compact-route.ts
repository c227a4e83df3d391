import type { CheckResult } from '@compactor/engine';
import type { IngestApp } from '../app/ingest-app.js';
import type { IngestContext } from '../app/ingest-context.js';
import { callerOf } from '../auth/authenticate.js';
import { objectResponse, securedByApiKey, withErrors } from '../schemas/openapi-schemas.js';
import { compactBodySchema, threadParamsSchema } from '../schemas/request-schemas.js';

export function registerCompactRoute(app: IngestApp, context: IngestContext): void {
  app.post(
    '/v1/threads/:id/compact',
    {
      schema: {
        summary: 'Compact now (synchronously), with optional instructions; force compacts under target too',
        tags: ['plans'],
        security: securedByApiKey,
        params: threadParamsSchema,
        body: compactBodySchema,
        response: withErrors(
          {
            200: objectResponse('What the compaction did', {
              status: { type: 'string', enum: ['committed', 'lost_race', 'not_needed'] },
              planVersion: { type: 'integer' },
              tokensBefore: { type: ['integer', 'null'] },
              tokensAfter: { type: ['integer', 'null'] },
              archivedMessageIds: { type: 'array', items: { type: 'string' } },
              keptMessageIds: { type: 'array', items: { type: 'string' } },
              tokensSaved: { type: 'integer' },
            }),
          },
          [400, 401, 404, 422, 502, 503],
        ),
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const { id } = request.params;
      const { body } = request;
      await context.origins.get(caller.tenantId, id);
      const result = await context.dependencies.engine.compactThread(caller.tenantId, id, {
        ...(body.instructions !== undefined ? { instructions: body.instructions } : {}),
        ...(body.force !== undefined ? { force: body.force } : {}),
      });
      return compactionSummary(result);
    },
  );
}

/** The CheckResult without the plan itself (GET /plan has it). */
export function compactionSummary(result: CheckResult) {
  const { commit, planner } = result;
  const planVersion =
    commit.status === 'committed'
      ? commit.version
      : commit.status === 'lost_race'
        ? commit.currentVersion
        : result.planVersionBefore;
  return {
    status: commit.status,
    plannerStatus: planner?.status ?? null,
    reason: planner?.reason ?? result.trigger.reason ?? null,
    threadVersion: result.threadVersion,
    planVersionBefore: result.planVersionBefore,
    planVersion,
    tokensBefore: planner?.tokensBefore ?? null,
    tokensAfter: planner?.tokensAfter ?? null,
    targetTokens: planner?.targetTokens ?? null,
    compressionRatio: result.compressionRatio,
    rungsUsed: planner?.rungsUsed ?? [],
    summarizerCalls: planner?.summarizerCalls ?? 0,
    summarizerCostUsd: planner?.summarizerCostUsd ?? 0,
    // The `seed-004-*` presets' result: what a committed compaction archived and kept, and what it saved.
    archivedMessageIds: result.outcome?.archivedMessageIds ?? [],
    keptMessageIds: result.outcome?.keptMessageIds ?? [],
    tokensSaved: result.outcome?.tokensSaved ?? 0,
  };
}
