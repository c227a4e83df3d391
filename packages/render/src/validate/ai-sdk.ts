import {
  isRecord,
  isVisibleText,
  type RequestValidation,
  ValidationCollector,
} from './request-validation.js';

const OUTPUT_TYPES = new Set(['text', 'json', 'error-text', 'error-json', 'content']);

/**
 * The structural rules of a Vercel AI SDK (v5+) call's `system`, `messages` and `tools`, in the
 * portable profile the renderer targets (valid for every provider behind the SDK): system text
 * only at the top or before the conversation, the first conversation message from the user,
 * non-empty content, every tool-call answered by a tool-result in the tool message(s) right after
 * it (same id and tool name, once), every tool-result answering a call of the assistant message
 * before it, unique call ids, and tools with a JSON Schema input.
 *
 * @param request - The request body as it would be sent (any value; nothing is assumed of its shape).
 * @returns Valid, or every rule broken, each as `path: message`.
 */
export function validateAiSdkRequest(request: unknown): RequestValidation {
  const errors = new ValidationCollector();
  if (!isRecord(request)) {
    errors.add('request', 'must be an object');
    return errors.result();
  }
  if (request.system !== undefined && !isVisibleText(request.system)) {
    errors.add('system', 'must be a non-empty string when present');
  }
  validateToolSet(request.tools, errors);
  const messages = request.messages;
  if (!Array.isArray(messages) || messages.length === 0) {
    errors.add('messages', 'must be a non-empty array');
    return errors.result();
  }
  const callIds = new Set<string>();
  let open: Map<string, { toolName: unknown; answered: boolean }> | undefined;
  let conversationStarted = false;
  const closeRun = (index: number) => {
    if (!open) return;
    for (const [id, call] of open) {
      if (!call.answered)
        errors.add(`messages[${index}]`, `tool-call ${id} is not answered before this message`);
    }
    open = undefined;
  };
  messages.forEach((message, index) => {
    const path = `messages[${index}]`;
    if (!isRecord(message)) {
      errors.add(path, 'must be an object');
      return;
    }
    if (message.role === 'tool') {
      if (!Array.isArray(message.content) || message.content.length === 0) {
        errors.add(`${path}.content`, 'must be a non-empty array of tool-result parts');
        return;
      }
      message.content.forEach((part, partIndex) => {
        const partPath = `${path}.content[${partIndex}]`;
        if (!isRecord(part) || part.type !== 'tool-result') {
          errors.add(partPath, 'must be a tool-result part');
          return;
        }
        const call = typeof part.toolCallId === 'string' ? open?.get(part.toolCallId) : undefined;
        if (!call) {
          errors.add(
            partPath,
            `tool-result ${String(part.toolCallId)} does not answer a call of the assistant message before it`,
          );
        } else if (call.answered) errors.add(partPath, `tool-call ${String(part.toolCallId)} answered twice`);
        else {
          call.answered = true;
          if (part.toolName !== call.toolName) errors.add(`${partPath}.toolName`, 'must match the call');
        }
        const output = part.output;
        if (!isRecord(output) || typeof output.type !== 'string' || !OUTPUT_TYPES.has(output.type)) {
          errors.add(
            `${partPath}.output`,
            'must be { type: text | json | error-text | error-json | content, value }',
          );
        } else if ((output.type === 'text' || output.type === 'error-text') && !isVisibleText(output.value)) {
          errors.add(`${partPath}.output.value`, 'must not be empty');
        } else if (output.value === undefined) errors.add(`${partPath}.output.value`, 'is required');
      });
      return;
    }
    closeRun(index);
    if (message.role === 'system') {
      if (conversationStarted) errors.add(path, 'system messages may not appear inside the conversation');
      if (!isVisibleText(message.content)) errors.add(`${path}.content`, 'must be a non-empty string');
      return;
    }
    if (message.role !== 'user' && message.role !== 'assistant') {
      errors.add(`${path}.role`, 'unknown role');
      return;
    }
    if (!conversationStarted && message.role !== 'user')
      errors.add(path, 'the conversation must start with a user message');
    conversationStarted = true;
    if (typeof message.content === 'string') {
      if (!isVisibleText(message.content)) errors.add(`${path}.content`, 'must not be empty');
      return;
    }
    if (!Array.isArray(message.content) || message.content.length === 0) {
      errors.add(`${path}.content`, 'must be a non-empty string or array');
      return;
    }
    const role = message.role;
    message.content.forEach((part, partIndex) => {
      const partPath = `${path}.content[${partIndex}]`;
      if (!isRecord(part)) {
        errors.add(partPath, 'must be an object');
        return;
      }
      switch (part.type) {
        case 'text':
          if (!isVisibleText(part.text)) errors.add(partPath, 'text must not be empty');
          return;
        case 'image':
          if (role !== 'user') errors.add(partPath, 'only user messages hold images');
          if (part.image === undefined || part.image === '')
            errors.add(partPath, 'image needs data or a URL');
          return;
        case 'file':
          if (part.data === undefined || part.data === '') errors.add(partPath, 'file needs data or a URL');
          if (!isVisibleText(part.mediaType)) errors.add(partPath, 'file needs a mediaType');
          return;
        case 'reasoning':
          if (role !== 'assistant') errors.add(partPath, 'only assistant messages hold reasoning');
          return;
        case 'tool-call': {
          if (role !== 'assistant') {
            errors.add(partPath, 'only assistant messages call tools');
            return;
          }
          if (!isVisibleText(part.toolCallId)) {
            errors.add(`${partPath}.toolCallId`, 'must not be empty');
            return;
          }
          if (callIds.has(part.toolCallId))
            errors.add(`${partPath}.toolCallId`, `duplicate id ${part.toolCallId}`);
          callIds.add(part.toolCallId);
          if (!isVisibleText(part.toolName)) errors.add(`${partPath}.toolName`, 'must not be empty');
          if (!isRecord(part.input)) errors.add(`${partPath}.input`, 'must be an object');
          open ??= new Map();
          open.set(part.toolCallId, { toolName: part.toolName, answered: false });
          return;
        }
        default:
          errors.add(partPath, `unknown part type ${String(part.type)}`);
      }
    });
  });
  closeRun(messages.length);
  return errors.result();
}

function validateToolSet(tools: unknown, errors: ValidationCollector): void {
  if (tools === undefined) return;
  if (!isRecord(tools)) {
    errors.add('tools', 'must be a record of tool name → tool');
    return;
  }
  for (const [name, tool] of Object.entries(tools)) {
    if (!/^[a-zA-Z0-9_-]{1,64}$/.test(name)) errors.add(`tools.${name}`, 'invalid tool name');
    if (!isRecord(tool) || !isRecord(tool.inputSchema))
      errors.add(`tools.${name}.inputSchema`, 'must be a JSON Schema object');
  }
}
