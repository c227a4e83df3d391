import {
  FUNCTION_NAME,
  isJsonObjectString,
  isRecord,
  isVisibleText,
  type RequestValidation,
  ValidationCollector,
} from './request-validation.js';

const MESSAGE_ROLES = new Set(['user', 'assistant', 'system', 'developer']);
const INPUT_PARTS = new Set(['input_text', 'input_image', 'input_file']);
const REASONING_FIELDS = new Set(['type', 'id', 'summary', 'content', 'encrypted_content', 'status']);
const COMPACTION_FIELDS = new Set(['type', 'id', 'encrypted_content', 'created_by']);

/**
 * The structural rules of an OpenAI Responses API request (stateless `input` items): message items
 * with known roles and non-empty content (input parts for user/system/developer, output_text for
 * assistant); every `function_call` answered by exactly one `function_call_output` before the next
 * message item, and every output answering an earlier, still open call; unique call ids; arguments
 * as a JSON object string; valid, unique function tools. Reasoning and compaction items (the
 * provider's own, sent back verbatim, ADR-0250) carry their `encrypted_content`.
 *
 * @param request - The request body as it would be sent (any value; nothing is assumed of its shape).
 * @returns Valid, or every rule broken, each as `path: message`.
 */
export function validateOpenAIResponsesRequest(request: unknown): RequestValidation {
  const errors = new ValidationCollector();
  if (!isRecord(request)) {
    errors.add('request', 'must be an object');
    return errors.result();
  }
  if (request.instructions !== undefined && !isVisibleText(request.instructions)) {
    errors.add('instructions', 'must be a non-empty string when present');
  }
  validateTools(request.tools, errors);
  const input = request.input;
  if (typeof input === 'string') {
    if (!isVisibleText(input)) errors.add('input', 'must not be empty');
    return errors.result();
  }
  if (!Array.isArray(input) || input.length === 0) {
    errors.add('input', 'must be a non-empty array');
    return errors.result();
  }
  const callIds = new Set<string>();
  const open = new Set<string>();
  input.forEach((item, index) => {
    const path = `input[${index}]`;
    if (!isRecord(item)) {
      errors.add(path, 'must be an object');
      return;
    }
    const type = item.type ?? 'message';
    if (type === 'function_call') {
      if (!isVisibleText(item.call_id)) errors.add(`${path}.call_id`, 'must be a non-empty string');
      else if (callIds.has(item.call_id)) errors.add(`${path}.call_id`, `duplicate call id ${item.call_id}`);
      else {
        callIds.add(item.call_id);
        open.add(item.call_id);
      }
      if (typeof item.name !== 'string' || !FUNCTION_NAME.test(item.name))
        errors.add(`${path}.name`, 'invalid name');
      if (!isJsonObjectString(item.arguments))
        errors.add(`${path}.arguments`, 'must be a JSON object string');
      return;
    }
    if (type === 'function_call_output') {
      if (typeof item.call_id !== 'string' || !open.has(item.call_id)) {
        errors.add(
          path,
          `function_call_output ${String(item.call_id)} does not answer an open function_call`,
        );
      } else open.delete(item.call_id);
      if (typeof item.output === 'string') {
        if (!isVisibleText(item.output)) errors.add(`${path}.output`, 'must not be empty');
      } else if (!Array.isArray(item.output) || item.output.length === 0) {
        errors.add(`${path}.output`, 'must be a non-empty string or array');
      }
      return;
    }
    if (type === 'reasoning' || type === 'compaction') {
      // The provider's own items, sent back verbatim (ADR-0250): they need their encrypted content.
      if (!isVisibleText(item.encrypted_content))
        errors.add(`${path}.encrypted_content`, `a ${type} item needs its encrypted_content`);
      if (type === 'reasoning' && !Array.isArray(item.summary))
        errors.add(`${path}.summary`, 'a reasoning item needs its summary array');
      const fields = type === 'reasoning' ? REASONING_FIELDS : COMPACTION_FIELDS;
      for (const key of Object.keys(item)) {
        if (!fields.has(key)) errors.add(`${path}.${key}`, `not a field of a Responses ${type} item`);
      }
      return;
    }
    if (type !== 'message') {
      errors.add(`${path}.type`, `unsupported item type ${String(type)}`);
      return;
    }
    for (const id of open) errors.add(path, `function_call ${id} is not answered before this message`);
    open.clear();
    if (typeof item.role !== 'string' || !MESSAGE_ROLES.has(item.role)) {
      errors.add(`${path}.role`, 'must be user, assistant, system or developer');
      return;
    }
    validateMessageContent(item.role, item.content, `${path}.content`, errors);
  });
  for (const id of open) errors.add('input', `function_call ${id} has no function_call_output`);
  return errors.result();
}

function validateMessageContent(
  role: string,
  content: unknown,
  path: string,
  errors: ValidationCollector,
): void {
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
    if (!isRecord(part) || typeof part.type !== 'string') {
      errors.add(partPath, 'must be a typed part');
      return;
    }
    if (role === 'assistant') {
      if (part.type !== 'output_text' && part.type !== 'refusal') {
        errors.add(partPath, 'assistant content must be output_text');
      } else if (part.type === 'output_text' && !isVisibleText(part.text))
        errors.add(partPath, 'must not be empty');
      return;
    }
    if (!INPUT_PARTS.has(part.type)) {
      errors.add(partPath, `a ${role} message cannot hold ${part.type}`);
      return;
    }
    if (part.type === 'input_text' && !isVisibleText(part.text)) errors.add(partPath, 'must not be empty');
    if (part.type === 'input_image' && !isVisibleText(part.image_url) && !isVisibleText(part.file_id)) {
      errors.add(partPath, 'input_image needs image_url or file_id');
    }
    if (part.type === 'input_file') {
      if (!isVisibleText(part.file_data) && !isVisibleText(part.file_id) && !isVisibleText(part.file_url)) {
        errors.add(partPath, 'input_file needs file_data, file_id or file_url');
      } else if (part.file_data !== undefined && !isVisibleText(part.filename)) {
        errors.add(partPath, 'file_data needs a filename');
      }
    }
  });
}

function validateTools(tools: unknown, errors: ValidationCollector): void {
  if (tools === undefined) return;
  if (!Array.isArray(tools)) {
    errors.add('tools', 'must be an array');
    return;
  }
  const names = new Set<string>();
  tools.forEach((tool, index) => {
    const path = `tools[${index}]`;
    if (!isRecord(tool) || tool.type !== 'function') {
      errors.add(path, 'must be a function tool');
      return;
    }
    if (typeof tool.name !== 'string' || !FUNCTION_NAME.test(tool.name))
      errors.add(`${path}.name`, 'invalid name');
    else if (names.has(tool.name)) errors.add(`${path}.name`, `duplicate tool name ${tool.name}`);
    else names.add(tool.name);
    if (tool.parameters !== undefined && !isRecord(tool.parameters)) {
      errors.add(`${path}.parameters`, 'must be a JSON Schema object');
    }
  });
}
