import { AdapterReport, type DraftMessage } from '../shared/draft.js';
import { convertOpenAiMessages } from '../shared/openai-messages.js';
import { asArray, asString, isObject, type JsonObject, tryParseJson } from '../shared/values.js';
import type { AdapterResult, FormatAdapter } from './format-adapter.js';

/** The agent names SWE-agent gives its main agent; any other name is a subagent. */
const mainAgentNames = new Set(['primary', 'main']);
/** Model names SWE-agent uses for replays and tests, which say nothing about the real model. */
const placeholderModels = new Set(['replay', 'instant_empty_submit', 'human', 'human_thought']);

/**
 * SWE-agent `.traj` JSON, read from `history` (what the model saw). The first real user message
 * is the task; demonstrations (`is_demo`) and the environment's observations, which SWE-agent
 * sends as user messages in its text variant, are synthetic. In the function-calling variant,
 * `tool_calls` and `tool` messages (with `tool_call_ids`) become calls and results.
 */
export const sweAgentAdapter: FormatAdapter = {
  format: 'swe-agent',
  defaultModel: 'gpt-4o',
  mismatch(source) {
    const json = source.json();
    if (!isObject(json) || !Array.isArray(json.history)) return 'not a JSON object with a `history` array';
    if (!Array.isArray(json.trajectory) && !isObject(json.info) && !source.lowerFileName.endsWith('.traj')) {
      return 'a `history` array but no `trajectory` or `info`';
    }
    return undefined;
  },
  listConversations(source) {
    return [{ index: 0, id: instanceId(source.json() as JsonObject), title: undefined }];
  },
  read(source) {
    return readTrajectory(source.json() as JsonObject);
  },
};

function replayConfig(trajectory: JsonObject): JsonObject | undefined {
  const raw = trajectory.replay_config;
  const config = typeof raw === 'string' ? tryParseJson(raw) : raw;
  return isObject(config) ? config : undefined;
}

function instanceId(trajectory: JsonObject): string | undefined {
  const problem = replayConfig(trajectory)?.problem_statement;
  return isObject(problem) ? asString(problem.id) : undefined;
}

function configuredModel(trajectory: JsonObject): string | undefined {
  const agent = replayConfig(trajectory)?.agent;
  const model = isObject(agent) && isObject(agent.model) ? asString(agent.model.name) : undefined;
  return model === undefined || placeholderModels.has(model) ? undefined : model;
}

function readTrajectory(trajectory: JsonObject): AdapterResult {
  const report = new AdapterReport();
  const history = asArray(trajectory.history).map((entry) =>
    // SWE-agent names the answered calls `tool_call_ids`; it makes one call per step.
    isObject(entry) && Array.isArray(entry.tool_call_ids) && entry.tool_call_id === undefined
      ? { ...entry, tool_call_id: entry.tool_call_ids[0] }
      : entry,
  );
  for (const entry of history) {
    if (isObject(entry) && Array.isArray(entry.tool_call_ids) && entry.tool_call_ids.length > 1) {
      report.warn(
        `a tool message answers ${entry.tool_call_ids.length} calls; its output is given to the first`,
      );
    }
  }
  let taskSeen = false;
  const annotate = (message: JsonObject, _index: number, draft: DraftMessage): DraftMessage => {
    const metadata: Record<string, unknown> = { ...draft.metadata };
    const agent = asString(message.agent);
    if (message.message_type !== undefined) metadata.messageType = message.message_type;
    const annotated: DraftMessage = { ...draft };
    if (agent !== undefined && !mainAgentNames.has(agent)) annotated.subagentId = agent;
    if (draft.role === 'user') {
      if (message.is_demo === true) {
        annotated.synthetic = true;
        metadata.demonstration = true;
      } else if (taskSeen) {
        annotated.synthetic = true;
        metadata.observation = true;
      } else if (annotated.subagentId === undefined) {
        taskSeen = true;
      }
    }
    if (Object.keys(metadata).length > 0) annotated.metadata = metadata;
    return annotated;
  };
  const drafts = convertOpenAiMessages(history, { idPrefix: 'swe', report, annotate });
  const info = isObject(trajectory.info) ? trajectory.info : {};
  return {
    drafts,
    report,
    model: configuredModel(trajectory),
    conversationCount: 1,
    conversationId: instanceId(trajectory),
    startedAt: undefined,
    threadMetadata: {
      ...(typeof info.exit_status === 'string' ? { exitStatus: info.exit_status } : {}),
      ...(typeof trajectory.environment === 'string' ? { environment: trajectory.environment } : {}),
    },
  };
}
