import { AdapterReport } from '../shared/draft.js';
import { convertOpenAiMessages, plainText } from '../shared/openai-messages.js';
import type { TranscriptSource } from '../shared/transcript-source.js';
import { asArray, isObject, type JsonObject, shortTitle } from '../shared/values.js';
import type { ConversationSummary } from '../types.js';
import type { AdapterResult, FormatAdapter } from './format-adapter.js';

/**
 * tau-bench trajectories: a JSON array of tasks, each with `traj`, OpenAI-style messages.
 * One conversation per task. tau-bench tools report failures as text starting with `Error:`,
 * which becomes a `failure` outcome.
 */
export const tauBenchAdapter: FormatAdapter = {
  format: 'tau-bench',
  defaultModel: 'gpt-4o',
  mismatch(source) {
    const tasks = tasksOf(source);
    if (tasks.length === 0) return 'not a JSON array of tasks with a `traj` message list';
    return undefined;
  },
  listConversations(source) {
    return tasksOf(source).map(
      (task, index): ConversationSummary => ({
        index,
        id: taskId(task),
        title: shortTitle(plainText(firstUser(task))),
      }),
    );
  },
  read(source, conversationIndex) {
    const tasks = tasksOf(source);
    const task = tasks[conversationIndex]!;
    const report = new AdapterReport();
    const drafts = convertOpenAiMessages(asArray(task.traj), {
      idPrefix: `tau-${conversationIndex}`,
      report,
      isFailure: (content) => content.startsWith('Error:'),
    });
    return {
      drafts,
      report,
      model: undefined,
      conversationCount: tasks.length,
      conversationId: taskId(task),
      startedAt: undefined,
      threadMetadata: {
        ...(task.task_id !== undefined ? { taskId: task.task_id } : {}),
        ...(typeof task.reward === 'number' ? { reward: task.reward } : {}),
        ...(task.trial !== undefined ? { trial: task.trial } : {}),
      },
    } satisfies AdapterResult;
  },
};

function tasksOf(source: TranscriptSource): JsonObject[] {
  return source.memo('tau-bench-tasks', () => findTasks(source));
}

function findTasks(source: TranscriptSource): JsonObject[] {
  const json = source.json();
  const candidates = Array.isArray(json) ? json : isObject(json) ? [json] : [];
  if (candidates.length === 0 || !candidates.every((task) => isObject(task) && Array.isArray(task.traj)))
    return [];
  return candidates as JsonObject[];
}

function taskId(task: JsonObject): string | undefined {
  return task.task_id === undefined ? undefined : `task-${String(task.task_id)}`;
}

function firstUser(task: JsonObject): unknown {
  const message = asArray(task.traj).find((m) => isObject(m) && m.role === 'user');
  return isObject(message) ? message.content : undefined;
}
