import type { ToolDefinition } from '@compactor/core';
import { describe, expect, it } from 'vitest';
import {
  anthropicToolSystemPromptTokens,
  claudeCalibrationTable,
  createCountCache,
  createTokenizer,
} from '../src/index.js';
import { referenceCount } from './helpers.js';

const cache = createCountCache();

/** The OpenAI cookbook's examples, with the prompt_tokens the OpenAI API reported for them. */
const weatherTool = {
  type: 'function',
  function: {
    name: 'get_current_weather',
    description: 'Get the current weather in a given location',
    parameters: {
      type: 'object',
      properties: {
        location: { type: 'string', description: 'The city and state, e.g. San Francisco, CA' },
        unit: {
          type: 'string',
          description: 'The unit of temperature to return',
          enum: ['celsius', 'fahrenheit'],
        },
      },
      required: ['location'],
    },
  },
};
const weatherMessages = [
  { role: 'system', content: 'You are a helpful assistant that can answer to questions about the weather.' },
  { role: 'user', content: "What's the weather like in San Francisco?" },
];
const jargonMessages = [
  {
    role: 'system',
    content:
      'You are a helpful, pattern-following assistant that translates corporate jargon into plain English.',
  },
  { role: 'system', name: 'example_user', content: 'New synergies will help drive top-line growth.' },
  {
    role: 'system',
    name: 'example_assistant',
    content: 'Things working well together will increase revenue.',
  },
  {
    role: 'system',
    name: 'example_user',
    content:
      "Let's circle back when we have more bandwidth to touch base on opportunities for increased leverage.",
  },
  {
    role: 'system',
    name: 'example_assistant',
    content: "Let's talk later when we're less busy about how to do better.",
  },
  {
    role: 'user',
    content: "This late pivot means we don't have time to boil the ocean for the client deliverable.",
  },
];

describe('OpenAI requests match the prompt_tokens the API reported in the cookbook', () => {
  it.each([
    ['gpt-4o', 124, 101],
    ['gpt-4o-mini', 124, 101],
    ['gpt-4', 129, 105],
    ['gpt-3.5-turbo', 129, 105],
  ])('%s: %i tokens for the jargon chat, %i for the weather chat with a tool', (model, jargon, weather) => {
    const tokenizer = createTokenizer({ model, cache });
    expect(tokenizer.countRequest({ messages: jargonMessages }, 'openai-chat')).toBe(jargon);
    expect(tokenizer.countRequest({ messages: weatherMessages, tools: [weatherTool] }, 'openai-chat')).toBe(
      weather,
    );
  });
});

const flatTool: ToolDefinition = {
  name: 'search',
  description: 'Search the codebase.',
  inputSchema: { type: 'object', properties: { query: { type: 'string', description: 'What to look for' } } },
};
const nestedTool: ToolDefinition = {
  name: 'search',
  description: 'Search the codebase.',
  inputSchema: {
    type: 'object',
    properties: {
      query: { type: 'string', description: 'What to look for' },
      filters: {
        type: 'object',
        description: 'Narrow the search',
        properties: {
          paths: { type: 'array', items: { type: 'string' } },
          caseSensitive: { type: 'boolean' },
        },
      },
    },
  },
};

describe('countTools', () => {
  const gpt4o = createTokenizer({ model: 'gpt-4o', cache });
  const claude = createTokenizer({ model: 'claude-sonnet-4-5', cache });

  it('counts nothing for no tools', () => {
    expect(gpt4o.countTools([], 'openai-chat')).toBe(0);
    expect(claude.countTools([], 'anthropic')).toBe(0);
  });

  it('follows the cookbook formula for a flat OpenAI tool', () => {
    // func_init 7 + "search:Search the codebase" + prop_init 3 + prop_key 3 + "query:string:What to look for" + func_end 12
    const expected =
      7 +
      referenceCount('search:Search the codebase') +
      3 +
      3 +
      referenceCount('query:string:What to look for') +
      12;
    expect(gpt4o.countTools([flatTool], 'openai-chat')).toBe(expected);
  });

  it('counts nested schemas the cookbook ignores', () => {
    expect(gpt4o.countTools([nestedTool], 'openai-chat')).toBeGreaterThan(
      gpt4o.countTools([flatTool], 'openai-chat') + 10,
    );
    expect(claude.countTools([nestedTool], 'anthropic')).toBeGreaterThan(
      claude.countTools([flatTool], 'anthropic'),
    );
  });

  it('adds Anthropic’s documented tool-use system prompt once, not per tool', () => {
    const [auto, forced] = anthropicToolSystemPromptTokens['claude-sonnet-4-5']!;
    const one = claude.countTools([flatTool], 'anthropic');
    const two = claude.countTools([flatTool, { ...flatTool, name: 'search_again' }], 'anthropic');
    const calibration = claudeCalibrationTable['claude-3']!.calibration;
    const json = JSON.stringify({
      name: flatTool.name,
      description: flatTool.description,
      input_schema: flatTool.inputSchema,
    });
    const schema = Math.ceil(
      calibration.safetyFactor *
        (calibration.ratios.toolCall * referenceCount(json) + calibration.overheads.toolCall),
    );
    expect(one).toBe(Math.max(auto, forced) + schema);
    expect(two - one).toBeLessThan(one - Math.max(auto, forced) + 5);
  });

  it('uses the tool_choice of an Anthropic request to pick the documented prompt size', () => {
    const [auto, forced] = anthropicToolSystemPromptTokens['claude-sonnet-4-5']!;
    const tools = [
      { name: 'search', description: 'Search the codebase.', input_schema: flatTool.inputSchema },
    ];
    const messages = [{ role: 'user', content: 'find it' }];
    const automatic = claude.countRequestBreakdown(
      { messages, tools, tool_choice: { type: 'auto' } },
      'anthropic',
    ).tools;
    const forcedCount = claude.countRequestBreakdown(
      { messages, tools, tool_choice: { type: 'tool', name: 'search' } } as never,
      'anthropic',
    ).tools;
    expect(automatic - forcedCount).toBe(auto - forced);
  });

  it('counts the largest documented prompt for a Claude model the table does not list', () => {
    const opus47 = createTokenizer({ model: 'claude-opus-4-7', cache });
    const listed = createTokenizer({ model: 'claude-opus-4-5', cache });
    expect(opus47.countTools([flatTool], 'anthropic')).toBeGreaterThan(
      listed.countTools([flatTool], 'anthropic'),
    );
  });
});
