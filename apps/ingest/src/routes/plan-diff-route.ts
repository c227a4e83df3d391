import { type CompactionPlan, NotFoundError } from '@compactor/core';
import type { IngestApp } from '../app/ingest-app.js';
import type { IngestContext } from '../app/ingest-context.js';
import { callerOf } from '../auth/authenticate.js';
import { diffPlans } from '../plans/plan-diff.js';
import { planVersionParamsSchema } from '../schemas/inspector-schemas.js';
import { objectResponse, securedByApiKey, withErrors } from '../schemas/openapi-schemas.js';

export function registerPlanDiffRoute(app: IngestApp, context: IngestContext): void {
  const { events, plans, lifecycle } = context.dependencies.stores;
  app.get(
    '/v1/threads/:id/plans/:version/diff',
    {
      schema: {
        summary: 'Which spans of messages a plan version treats differently from the version before it',
        description:
          'Spans are runs of consecutive messages (log order) with the same before→after action ' +
          '(include, clear, summarize, externalize, drop). `compaction` is the compaction_completed ' +
          'lifecycle event that produced the version, when the log has it (same timestamp as the plan).',
        tags: ['plans'],
        security: securedByApiKey,
        params: planVersionParamsSchema,
        response: withErrors(
          {
            200: objectResponse('The changed spans', {
              version: { type: 'integer' },
              previousVersion: { type: 'integer' },
              changes: { type: 'array', items: { type: 'object', additionalProperties: true } },
            }),
          },
          [400, 401, 404],
        ),
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const { id, version } = request.params;
      await context.origins.get(caller.tenantId, id);
      const plan = await plans.getVersion(caller.tenantId, id, version);
      if (!plan) throw new NotFoundError('plan version', `${id}@${version}`);
      const [previous, log, history] = await Promise.all([
        version > 1 ? plans.getVersion(caller.tenantId, id, version - 1) : Promise.resolve(null),
        events.readAll(caller.tenantId, id),
        lifecycle.list(caller.tenantId, id),
      ]);
      const messageIds = log.flatMap((event) =>
        event.type === 'message.appended' ? [event.message.id] : [],
      );
      const changes = diffPlans(messageIds, previous, plan);
      const compaction = history.find(
        (event) => event.name === 'compaction_completed' && event.at === plan.createdAt,
      );
      return {
        threadId: id,
        version,
        previousVersion: version - 1,
        plan: planFacts(plan),
        previous: previous ? planFacts(previous) : null,
        compaction: compaction ?? null,
        changes: changes.map((span) => ({ ...span, messageCount: span.messageIds.length })),
        changedMessages: changes.reduce((sum, span) => sum + span.messageIds.length, 0),
      };
    },
  );
}

function planFacts(plan: CompactionPlan) {
  return {
    basedOnSeq: plan.basedOnSeq,
    createdAt: plan.createdAt,
    tokensBefore: plan.originalTokenCount,
    tokensAfter: plan.compactedTokenCount,
    records: {
      externalize: plan.externalizations.length,
      summarize: plan.summarizations.length,
      clear: plan.clearings.length,
      drop: plan.drops.length,
    },
  };
}
