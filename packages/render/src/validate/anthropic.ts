import {
  isRecord,
  isVisibleText,
  type RequestValidation,
  ValidationCollector,
} from './request-validation.js';

const TOOL_USE_ID = /^[a-zA-Z0-9_-]+$/;
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,128}$/;
const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);
const MAX_CACHE_BREAKPOINTS = 4;
const USER_BLOCKS = new Set(['text', 'image', 'document', 'tool_result']);
const ASSISTANT_BLOCKS = new Set(['text', 'thinking', 'redacted_thinking', 'tool_use', 'compaction']);

/**
 * The structural rules of an Anthropic Messages API request: the first message is a user message;
 * every tool_use is answered by a tool_result in the very next message (a user message, results
 * first), and every tool_result answers a tool_use of the message right before it; ids are unique
 * and well-formed; no empty text; thinking blocks keep their signature; at most four cache_control
 * breakpoints, never on thinking blocks. Consecutive same-role messages are allowed (the API
 * combines them into one turn). A `compaction` block (the provider's own, sent back verbatim,
 * ADR-0250) is taken in an assistant message; one with content must be the conversation's first
 * block (its assistant message may then open the conversation), and there is at most one.
 *
 * @param request - The request body as it would be sent (any value; nothing is assumed of its shape).
 * @returns Valid, or every rule broken, each as `path: message`.
 */
export function validateAnthropicRequest(request: unknown): RequestValidation {
  const errors = new ValidationCollector();
  if (!isRecord(request)) {
    errors.add('request', 'must be an object');
    return errors.result();
  }
  let breakpoints = 0;
  const countCacheControl = (block: Record<string, unknown>, path: string) => {
    if (block.cache_control === undefined) return;
    breakpoints += 1;
    if (!isRecord(block.cache_control) || block.cache_control.type !== 'ephemeral') {
      errors.add(`${path}.cache_control`, 'must be { type: "ephemeral" }');
    }
    if (block.type === 'thinking' || block.type === 'redacted_thinking') {
      errors.add(`${path}.cache_control`, 'thinking blocks cannot carry cache_control');
    }
  };

  if (request.system !== undefined) {
    if (typeof request.system === 'string') {
      if (!isVisibleText(request.system)) errors.add('system', 'must not be empty');
    } else if (Array.isArray(request.system)) {
      request.system.forEach((block, index) => {
        if (!isRecord(block) || block.type !== 'text' || !isVisibleText(block.text)) {
          errors.add(`system[${index}]`, 'must be a non-empty text block');
        } else countCacheControl(block, `system[${index}]`);
      });
    } else errors.add('system', 'must be a string or an array of text blocks');
  }

  if (request.tools !== undefined) {
    if (!Array.isArray(request.tools)) errors.add('tools', 'must be an array');
    else {
      const names = new Set<string>();
      request.tools.forEach((tool, index) => {
        const path = `tools[${index}]`;
        if (!isRecord(tool)) {
          errors.add(path, 'must be an object');
          return;
        }
        if (typeof tool.name !== 'string' || !TOOL_NAME.test(tool.name))
          errors.add(`${path}.name`, 'invalid tool name');
        else if (names.has(tool.name)) errors.add(`${path}.name`, `duplicate tool name ${tool.name}`);
        else names.add(tool.name);
        if (!isRecord(tool.input_schema) || tool.input_schema.type !== 'object') {
          errors.add(`${path}.input_schema`, 'must be a JSON Schema object with type "object"');
        }
        if (tool.description !== undefined && typeof tool.description !== 'string') {
          errors.add(`${path}.description`, 'must be a string');
        }
        countCacheControl(tool, path);
      });
    }
  }

  const messages = request.messages;
  if (!Array.isArray(messages) || messages.length === 0) {
    errors.add('messages', 'must be a non-empty array');
    return errors.result();
  }
  const toolUseIds = new Set<string>();
  let compactions = 0;
  const blocksOf = (index: number): Record<string, unknown>[] => {
    const content = (messages[index] as { content?: unknown } | undefined)?.content;
    return Array.isArray(content) ? content.filter(isRecord) : [];
  };
  messages.forEach((message, index) => {
    const path = `messages[${index}]`;
    if (!isRecord(message)) {
      errors.add(path, 'must be an object');
      return;
    }
    if (message.role !== 'user' && message.role !== 'assistant') {
      errors.add(`${path}.role`, 'must be user or assistant');
      return;
    }
    if (index === 0 && message.role !== 'user' && !opensWithCompaction(message))
      errors.add(path, 'the first message must be a user message');
    if (typeof message.content === 'string') {
      if (!isVisibleText(message.content)) errors.add(`${path}.content`, 'must not be empty');
      return;
    }
    if (!Array.isArray(message.content) || message.content.length === 0) {
      errors.add(`${path}.content`, 'must be a non-empty string or array');
      return;
    }
    const allowed = message.role === 'user' ? USER_BLOCKS : ASSISTANT_BLOCKS;
    let seenNonResult = false;
    message.content.forEach((block, blockIndex) => {
      const blockPath = `${path}.content[${blockIndex}]`;
      if (!isRecord(block) || typeof block.type !== 'string') {
        errors.add(blockPath, 'must be a typed block');
        return;
      }
      if (!allowed.has(block.type)) {
        errors.add(blockPath, `a ${message.role} message cannot hold ${block.type}`);
        return;
      }
      countCacheControl(block, blockPath);
      if (block.type === 'compaction' && typeof block.content === 'string') {
        compactions += 1;
        if (index !== 0 || blockIndex !== 0)
          errors.add(
            blockPath,
            'a compaction block with content must be the first block of the conversation',
          );
        if (compactions > 1) errors.add(blockPath, 'at most one compaction block with content');
      }
      if (block.type === 'tool_result') {
        if (seenNonResult) errors.add(blockPath, 'tool_result blocks must come before any other block');
      } else seenNonResult = true;
      validateBlock(block, blockPath, errors, toolUseIds);
    });
  });

  // Pairing, both ways.
  messages.forEach((message, index) => {
    if (!isRecord(message)) return;
    const uses = blocksOf(index).filter((block) => block.type === 'tool_use');
    const results = blocksOf(index).filter((block) => block.type === 'tool_result');
    if (message.role === 'assistant' && uses.length > 0) {
      const next = messages[index + 1] as { role?: unknown } | undefined;
      const answered = new Set(
        next?.role === 'user'
          ? blocksOf(index + 1)
              .filter((block) => block.type === 'tool_result')
              .map((block) => block.tool_use_id)
          : [],
      );
      for (const use of uses) {
        if (!answered.has(use.id)) {
          errors.add(
            `messages[${index}]`,
            `tool_use ${String(use.id)} has no tool_result in the next message`,
          );
        }
      }
    }
    if (results.length > 0) {
      const previous = messages[index - 1] as { role?: unknown } | undefined;
      const called = new Set(
        previous?.role === 'assistant'
          ? blocksOf(index - 1)
              .filter((block) => block.type === 'tool_use')
              .map((block) => block.id)
          : [],
      );
      const seen = new Set<unknown>();
      for (const result of results) {
        if (!called.has(result.tool_use_id)) {
          errors.add(
            `messages[${index}]`,
            `tool_result ${String(result.tool_use_id)} does not answer a tool_use of the previous message`,
          );
        }
        if (seen.has(result.tool_use_id)) {
          errors.add(`messages[${index}]`, `tool_use ${String(result.tool_use_id)} answered twice`);
        }
        seen.add(result.tool_use_id);
      }
    }
  });
  if (breakpoints > MAX_CACHE_BREAKPOINTS) {
    errors.add('request', `${breakpoints} cache_control breakpoints; at most ${MAX_CACHE_BREAKPOINTS}`);
  }
  return errors.result();
}

function validateBlock(
  block: Record<string, unknown>,
  path: string,
  errors: ValidationCollector,
  toolUseIds: Set<string>,
): void {
  switch (block.type) {
    case 'text':
      if (!isVisibleText(block.text)) errors.add(path, 'text must not be empty or whitespace');
      return;
    case 'image': {
      const source = block.source;
      if (!isRecord(source)) {
        errors.add(path, 'image needs a source');
        return;
      }
      if (source.type === 'base64') {
        if (typeof source.media_type !== 'string' || !IMAGE_TYPES.has(source.media_type)) {
          errors.add(`${path}.source.media_type`, 'unsupported image type');
        }
        if (!isVisibleText(source.data)) errors.add(`${path}.source.data`, 'must not be empty');
      } else if (source.type === 'url') {
        if (!isVisibleText(source.url)) errors.add(`${path}.source.url`, 'must not be empty');
      } else errors.add(`${path}.source.type`, 'must be base64 or url');
      return;
    }
    case 'document': {
      const source = block.source;
      if (!isRecord(source)) {
        errors.add(path, 'document needs a source');
        return;
      }
      if (source.type === 'base64') {
        if (source.media_type !== 'application/pdf')
          errors.add(`${path}.source.media_type`, 'must be application/pdf');
        if (!isVisibleText(source.data)) errors.add(`${path}.source.data`, 'must not be empty');
      } else if (source.type === 'url') {
        if (!isVisibleText(source.url)) errors.add(`${path}.source.url`, 'must not be empty');
      } else if (source.type === 'text') {
        if (typeof source.data !== 'string') errors.add(`${path}.source.data`, 'must be a string');
      } else errors.add(`${path}.source.type`, 'must be base64, url or text');
      return;
    }
    case 'thinking':
      if (typeof block.thinking !== 'string') errors.add(path, 'thinking must be a string');
      if (!isVisibleText(block.signature)) errors.add(path, 'thinking blocks must keep their signature');
      return;
    case 'compaction':
      if (block.content !== null && !isVisibleText(block.content))
        errors.add(`${path}.content`, 'must be null or non-empty text');
      if (
        block.encrypted_content !== undefined &&
        block.encrypted_content !== null &&
        typeof block.encrypted_content !== 'string'
      )
        errors.add(`${path}.encrypted_content`, 'must be a string or null');
      return;
    case 'redacted_thinking':
      if (!isVisibleText(block.data)) errors.add(path, 'redacted_thinking needs its data');
      return;
    case 'tool_use':
      if (typeof block.id !== 'string' || !TOOL_USE_ID.test(block.id)) {
        errors.add(`${path}.id`, 'tool_use id must match ^[a-zA-Z0-9_-]+$');
      } else if (toolUseIds.has(block.id)) errors.add(`${path}.id`, `duplicate tool_use id ${block.id}`);
      else toolUseIds.add(block.id);
      if (!isVisibleText(block.name)) errors.add(`${path}.name`, 'must not be empty');
      if (!isRecord(block.input)) errors.add(`${path}.input`, 'must be an object');
      return;
    case 'tool_result':
      if (typeof block.tool_use_id !== 'string' || block.tool_use_id === '') {
        errors.add(`${path}.tool_use_id`, 'must be a non-empty string');
      }
      if (typeof block.content === 'string') {
        if (!isVisibleText(block.content)) errors.add(`${path}.content`, 'must not be empty');
      } else if (Array.isArray(block.content)) {
        if (block.content.length === 0) errors.add(`${path}.content`, 'must not be empty');
        block.content.forEach((inner, index) => {
          if (!isRecord(inner) || (inner.type !== 'text' && inner.type !== 'image')) {
            errors.add(`${path}.content[${index}]`, 'must be a text or image block');
          } else if (inner.type === 'text' && !isVisibleText(inner.text)) {
            errors.add(`${path}.content[${index}]`, 'text must not be empty');
          }
        });
      } else if (block.content !== undefined) errors.add(`${path}.content`, 'must be a string or blocks');
      if (block.is_error !== undefined && typeof block.is_error !== 'boolean') {
        errors.add(`${path}.is_error`, 'must be a boolean');
      }
      return;
  }
}

/** An assistant message that opens with a compaction block with content (ADR-0250). */
function opensWithCompaction(message: Record<string, unknown>): boolean {
  if (message.role !== 'assistant' || !Array.isArray(message.content)) return false;
  const first: unknown = message.content[0];
  return isRecord(first) && first.type === 'compaction' && typeof first.content === 'string';
}
