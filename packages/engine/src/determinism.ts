import {
  type CurrentDeterminism,
  currentDeterminismFrom,
  type DeterminismHooks,
  type DeterminismMetadata,
  type DeterminismReport,
  hasChanged,
  type Logger,
  replayableResultsToVerify,
  type Thread,
} from '@compactor/core';

/**
 * Call the runtime's `capture_determinism` hooks (ADR-0193) for the thread's replayable results and
 * build the synchronous lookup the planner's clear rung and the renderer's emergency fit take. A
 * hook that throws or answers nothing leaves its result unknown, which counts as changed (kept),
 * and is counted in the report.
 *
 * @param thread - The folded thread.
 * @param hooks - Per tool name, the hook.
 * @param logger - For hook failures.
 * @returns The lookup and what the hooks found.
 */
export async function captureCurrentDeterminism(
  thread: Thread,
  hooks: DeterminismHooks,
  logger: Logger,
): Promise<{ currentDeterminism: CurrentDeterminism; report: DeterminismReport }> {
  const owner = { tenantId: thread.tenantId, threadId: thread.id };
  const envelopes = replayableResultsToVerify(thread.messages, thread.policy.toolDurability, hooks);
  const report: DeterminismReport = { checked: envelopes.length, unchanged: 0, changed: 0, failed: 0 };
  const current = new Map<string, DeterminismMetadata>();
  const answers = await Promise.allSettled(
    envelopes.map(async (envelope) => hooks[envelope.toolName]!(envelope, owner)),
  );
  answers.forEach((answer, index) => {
    const envelope = envelopes[index]!;
    if (answer.status === 'rejected' || answer.value === undefined) {
      report.failed += 1;
      if (answer.status === 'rejected') {
        logger.warn(
          { err: answer.reason, ...owner, toolName: envelope.toolName, toolCallId: envelope.toolCallId },
          'capture_determinism failed; the result is kept',
        );
      }
      return;
    }
    current.set(envelope.toolCallId, answer.value);
    if (hasChanged(envelope.determinism, answer.value)) report.changed += 1;
    else report.unchanged += 1;
  });
  return { currentDeterminism: currentDeterminismFrom(current), report };
}
