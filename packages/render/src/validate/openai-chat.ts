import {
  FUNCTION_NAME,
  isJsonObjectString,
  isRecord,
  isVisibleText,
  type RequestValidation,
  ValidationCollector,
} from './request-validation.js';

const MAX_TOOL_CALL_ID_LENGTH = 40;
const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool']);

/**
 * The structural rules of an OpenAI Chat Completions request: known roles; non-empty content (an
 * assistant message may have null content only when it calls tools); every assistant tool call
 * answered by exactly one `tool` message in the run of tool messages right after it, and every
 * `tool` message inside such a run answering one of its calls; unique call ids of at most 40
 * characters; arguments as a JSON object string; valid, unique function names.
 *
 * @param request - The request body as it would be sent (any value; nothing is assumed of its shape).
 * @returns Valid, or every rule broken, each as `path: message`.
 */
export function validateOpenAIChatRequest(request: unknown): RequestValidation {
  const errors = new ValidationCollector();
  if (!isRecord(request)) {
    errors.add('request', 'must be an object');
    return errors.result();
  }
  validateFunctionTools(request.tools, errors);
  const messages = request.messages;
  if (!Array.isArray(messages) || messages.length === 0) {
    errors.add('messages', 'must be a non-empty array');
    return errors.result();
  }
  const callIds = new Set<string>();
  let open: Map<string, boolean> | undefined;
  const closeRun = (index: number) => {
    if (!open) return;
    for (const [id, answered] of open) {
      if (!answered) errors.add(`messages[${index}]`, `tool call ${id} is not answered before this message`);
    }
    open = undefined;
  };
  messages.forEach((message, index) => {
    const path = `messages[${index}]`;
    if (!isRecord(message) || typeof message.role !== 'string' || !ROLES.has(message.role)) {
      errors.add(path, 'must be a message with a known role');
      return;
    }
    if (message.role === 'tool') {
      if (typeof message.tool_call_id !== 'string' || message.tool_call_id === '') {
        errors.add(`${path}.tool_call_id`, 'must be a non-empty string');
      } else if (!open?.has(message.tool_call_id)) {
        errors.add(
          path,
          `tool message ${message.tool_call_id} does not answer a call of the assistant message before it`,
        );
      } else if (open.get(message.tool_call_id)) {
        errors.add(path, `tool call ${message.tool_call_id} answered twice`);
      } else open.set(message.tool_call_id, true);
      validateTextContent(message.content, `${path}.content`, errors);
      return;
    }
    closeRun(index);
    if (message.role === 'assistant') {
      const calls = message.tool_calls;
      const hasCalls = Array.isArray(calls) && calls.length > 0;
      if (calls !== undefined && !hasCalls)
        errors.add(`${path}.tool_calls`, 'must be a non-empty array when present');
      if (message.content === null || message.content === undefined) {
        if (!hasCalls) errors.add(`${path}.content`, 'an assistant message needs content or tool calls');
      } else validateTextContent(message.content, `${path}.content`, errors);
      if (hasCalls) {
        open = new Map();
        (calls as unknown[]).forEach((call, callIndex) => {
          const callPath = `${path}.tool_calls[${callIndex}]`;
          if (!isRecord(call) || call.type !== 'function' || !isRecord(call.function)) {
            errors.add(callPath, 'must be { id, type: "function", function }');
            return;
          }
          if (typeof call.id !== 'string' || call.id === '' || call.id.length > MAX_TOOL_CALL_ID_LENGTH) {
            errors.add(
              `${callPath}.id`,
              `must be a non-empty string of at most ${MAX_TOOL_CALL_ID_LENGTH} characters`,
            );
          } else if (callIds.has(call.id)) errors.add(`${callPath}.id`, `duplicate tool call id ${call.id}`);
          else {
            callIds.add(call.id);
            open!.set(call.id, false);
          }
          if (typeof call.function.name !== 'string' || !FUNCTION_NAME.test(call.function.name)) {
            errors.add(`${callPath}.function.name`, 'invalid function name');
          }
          if (!isJsonObjectString(call.function.arguments)) {
            errors.add(`${callPath}.function.arguments`, 'must be a JSON object string');
          }
        });
      }
      return;
    }
    if (message.role === 'user') validateUserContent(message.content, `${path}.content`, errors);
    else validateTextContent(message.content, `${path}.content`, errors);
  });
  closeRun(messages.length);
  return errors.result();
}

function validateTextContent(content: unknown, path: string, errors: ValidationCollector): void {
  if (typeof content === 'string') {
    if (!isVisibleText(content)) errors.add(path, 'must not be empty');
    return;
  }
  if (!Array.isArray(content) || content.length === 0) {
    errors.add(path, 'must be a non-empty string or array');
    return;
  }
  content.forEach((part, index) => {
    if (!isRecord(part) || part.type !== 'text' || !isVisibleText(part.text)) {
      errors.add(`${path}[${index}]`, 'must be a non-empty text part');
    }
  });
}

function validateUserContent(content: unknown, path: string, errors: ValidationCollector): void {
  if (typeof content === 'string') {
    if (!isVisibleText(content)) errors.add(path, 'must not be empty');
    return;
  }
  if (!Array.isArray(content) || content.length === 0) {
    errors.add(path, 'must be a non-empty string or array');
    return;
  }
  content.forEach((part, index) => {
    const partPath = `${path}[${index}]`;
    if (!isRecord(part)) {
      errors.add(partPath, 'must be an object');
      return;
    }
    if (part.type === 'text') {
      if (!isVisibleText(part.text)) errors.add(partPath, 'text must not be empty');
    } else if (part.type === 'image_url') {
      if (!isRecord(part.image_url) || !isVisibleText(part.image_url.url))
        errors.add(partPath, 'image_url needs a url');
    } else if (part.type === 'file') {
      const file = part.file;
      if (!isRecord(file) || (!isVisibleText(file.file_id) && !isVisibleText(file.file_data))) {
        errors.add(partPath, 'file needs file_id or file_data');
      } else if (file.file_data !== undefined && !isVisibleText(file.filename)) {
        errors.add(partPath, 'file_data needs a filename');
      }
    } else if (part.type !== 'input_audio') errors.add(partPath, `unknown part type ${String(part.type)}`);
  });
}

export function validateFunctionTools(tools: unknown, errors: ValidationCollector): void {
  if (tools === undefined) return;
  if (!Array.isArray(tools)) {
    errors.add('tools', 'must be an array');
    return;
  }
  const names = new Set<string>();
  tools.forEach((tool, index) => {
    const path = `tools[${index}]`;
    if (!isRecord(tool) || tool.type !== 'function' || !isRecord(tool.function)) {
      errors.add(path, 'must be { type: "function", function }');
      return;
    }
    const name = tool.function.name;
    if (typeof name !== 'string' || !FUNCTION_NAME.test(name))
      errors.add(`${path}.function.name`, 'invalid name');
    else if (names.has(name)) errors.add(`${path}.function.name`, `duplicate tool name ${name}`);
    else names.add(name);
    if (tool.function.parameters !== undefined && !isRecord(tool.function.parameters)) {
      errors.add(`${path}.function.parameters`, 'must be a JSON Schema object');
    }
  });
}
