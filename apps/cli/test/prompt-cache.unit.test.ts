import { threadBuilder } from '@compactor/testkit/thread-builder';
import { createTokenizer } from '@compactor/tokenizer';
import { describe, expect, it } from 'vitest';
import { callPoints, threadPrefix } from '../src/eval/cache-replay.js';
import { CACHE_PRICES, CacheMeter, costOf, requestBlocks } from '../src/eval/prompt-cache.js';

const tokenizer = createTokenizer({ model: 'gpt-4o' });
const count = (text: string) => tokenizer.count(text);
const meter = () => new CacheMeter(count);

const user = (text: string) => ({ role: 'user', content: [{ type: 'text', text }] });
const assistant = (text: string) => ({ role: 'assistant', content: [{ type: 'text', text }] });
const tool = (name: string) => ({
  name,
  description: `The ${name} tool.`,
  input_schema: { type: 'object', properties: { path: { type: 'string' } } },
});

describe('the prompt-cache meter', () => {
  it('counts the first call as cold and an extended request as its previous request cached', () => {
    const cache = meter();
    const first = { messages: [user('Fix the parser, please.')] };
    const second = { messages: [...first.messages, assistant('Reading it now.'), user('Thanks.')] };
    expect(cache.observe(first).cachedTokens).toBe(0);
    const call = cache.observe(second);
    const [a, b, c] = requestBlocks(second);
    expect(call.requestTokens).toBe(count(a!) + count(b!) + count(c!));
    expect(call.cachedTokens).toBe(count(a!));
    const figures = cache.figures({ commits: 0, emergencyFits: 0, emergencyDropped: emptyDrops() });
    expect(figures.calls).toBe(2);
    expect(figures.cachedShare).toBeCloseTo((0 + count(a!) / call.requestTokens) / 2, 12);
    expect(figures.uncachedTokens).toBe(figures.inputTokens - count(a!));
  });

  it('measures the common prefix in tokens, not characters', () => {
    // 6,000 dashes are few tokens; the varied text after it is many per character.
    const cheap = '-'.repeat(6_000);
    const varied = (seed: number) =>
      Array.from({ length: 300 }, (_, index) => `${(index * 7919 + seed) % 997}`).join(' ');
    const first = { messages: [user(cheap), assistant(varied(1))] };
    const second = { messages: [user(cheap), assistant(varied(2))] };
    const cache = meter();
    cache.observe(first);
    const call = cache.observe(second);
    const blocks = requestBlocks(second);
    const shared = count(blocks[0]!);
    // The second block differs from its 32nd character on (after `{"role":"assistant",...,"text":"`).
    const before = requestBlocks(first)[1]!;
    let same = 0;
    while (before[same] === blocks[1]![same]) same += 1;
    expect(call.cachedTokens).toBe(shared + count(blocks[1]!.slice(0, same)));
    const tokenShare = call.cachedTokens / call.requestTokens;
    const characterShare = (blocks[0]!.length + same) / (blocks[0]!.length + blocks[1]!.length);
    // A meter counting characters would be far off: most characters are shared, few tokens are.
    expect(characterShare).toBeGreaterThan(0.6);
    expect(tokenShare).toBeLessThan(0.3);
  });

  it('counts a changed tool list as a break: tools come first', () => {
    const history = [user('List the files.'), assistant('Here they are.'), user('Now read main.ts.')];
    const grown = [...history, assistant('Reading.'), user('And the tests?')];
    const steady = meter();
    steady.observe({ tools: [tool('read_file')], messages: history });
    const kept = steady.observe({ tools: [tool('read_file')], messages: grown });
    const changed = meter();
    changed.observe({ tools: [tool('read_file')], messages: history });
    const broken = changed.observe({ tools: [tool('read_file'), tool('read_artifact')], messages: grown });
    expect(kept.cachedTokens / kept.requestTokens).toBeGreaterThan(0.6);
    // Only the unchanged first tool (and the `{"name":"` both blocks open with) is still a prefix.
    const firstTool = count(requestBlocks({ tools: [tool('read_file')] })[0]!);
    expect(broken.cachedTokens).toBeGreaterThanOrEqual(firstTool);
    expect(broken.cachedTokens).toBeLessThanOrEqual(firstTool + count('{"name":"read_'));
    expect(broken.cachedTokens / broken.requestTokens).toBeLessThan(0.4);
  });

  it('puts tools before system before messages, whatever the key order of the request', () => {
    expect(
      requestBlocks({
        messages: [user('hi')],
        system: [{ type: 'text', text: 'Be brief.' }],
        tools: [tool('x')],
      }),
    ).toEqual([
      JSON.stringify(tool('x')),
      JSON.stringify({ type: 'text', text: 'Be brief.' }),
      JSON.stringify(user('hi')),
    ]);
    // OpenAI Responses: instructions and input items; AI SDK: a tool set by name.
    expect(requestBlocks({ input: [user('hi')], instructions: 'Be brief.' })).toEqual([
      JSON.stringify('Be brief.'),
      JSON.stringify(user('hi')),
    ]);
    expect(requestBlocks({ messages: [], tools: { grep: { inputSchema: {} } } })).toEqual([
      JSON.stringify({ grep: { inputSchema: {} } }),
    ]);
  });

  it('ignores where the cache breakpoints sit (a marker is not content)', () => {
    const cache = meter();
    const marked = (message: object) => ({ ...message, cache_control: { type: 'ephemeral' } });
    cache.observe({ messages: [marked(user('one')), assistant('two')] });
    const call = cache.observe({ messages: [user('one'), marked(assistant('two')), user('three')] });
    const blocks = requestBlocks({ messages: [user('one'), assistant('two'), user('three')] });
    expect(call.cachedTokens).toBe(count(blocks[0]!) + count(blocks[1]!));
  });

  it('attributes uncached tokens to what the call followed', () => {
    const cache = meter();
    const first = cache.observe({ messages: [user('one')] }, 'other');
    const second = cache.observe({ messages: [user('[Summary] one'), user('two')] }, 'commit');
    const figures = cache.figures({ commits: 1, emergencyFits: 0, emergencyDropped: emptyDrops() });
    expect(figures.uncachedBy).toEqual({
      other: first.requestTokens,
      commit: second.requestTokens - second.cachedTokens,
      emergencyFit: 0,
      recall: 0,
    });
  });

  it('attributes the uncached tokens of a recall block to recall, whatever the call followed', () => {
    const cache = meter();
    const recall = user(
      '[Recalled from earlier in this conversation - compacted messages]\n(turn 1) the port is 8080',
    );
    cache.observe({ messages: [user('one'), recall] }, 'other');
    // The same block, in place: cached; a new message after it: the call's own.
    const held = cache.observe({ messages: [user('one'), recall, user('two')] }, 'other');
    const blocks = requestBlocks({ messages: [user('one'), recall, user('two')] });
    expect(held.cachedTokens).toBe(count(blocks[0]!) + count(blocks[1]!));
    // Moved to the end: the block is written again, and counted as recall's.
    const moved = cache.observe({ messages: [user('one'), user('two'), recall] }, 'commit');
    const figures = cache.figures({ commits: 1, emergencyFits: 0, emergencyDropped: emptyDrops() });
    const movedBlocks = requestBlocks({ messages: [user('one'), user('two'), recall] });
    expect(figures.uncachedBy.recall).toBe(count(blocks[1]!) + count(movedBlocks[2]!));
    expect(figures.uncachedBy.commit).toBe(moved.requestTokens - moved.cachedTokens - count(movedBlocks[2]!));
  });

  it('counts a break when less than half of the previous request is reused', () => {
    const cache = meter();
    const long = 'word '.repeat(400);
    cache.observe({ messages: [user(long), assistant('ok')] });
    cache.observe({ messages: [user(long), assistant('ok'), user('more')] });
    cache.observe({ messages: [user('[Summary] short'), user('more')] });
    expect(cache.figures({ commits: 1, emergencyFits: 0, emergencyDropped: emptyDrops() }).breaks).toBe(1);
  });
});

describe('cost at list prices', () => {
  it('bills the prefix as a cache read and the rest as a cache write (Anthropic Sonnet)', () => {
    expect(costOf(CACHE_PRICES.anthropic, 1_000_000, 900_000)).toBeCloseTo(0.9 * 0.3 + 0.1 * 3.75, 12);
    expect(costOf(CACHE_PRICES.anthropic, 1_000_000, 0)).toBeCloseTo(3.75, 12);
  });

  it('caches OpenAI prefixes of 1,024 tokens or more, in 128-token steps, at the cached rate', () => {
    expect(costOf(CACHE_PRICES.openai, 2_000, 1_000)).toBeCloseTo((2_000 * 2) / 1e6, 12);
    expect(costOf(CACHE_PRICES.openai, 2_000, 1_300)).toBeCloseTo((1_280 * 0.5 + 720 * 2) / 1e6, 12);
  });
});

describe('call points of a replay', () => {
  it('are before each root-agent reply, once per reply split over several entries', () => {
    const { thread } = threadBuilder('calls')
      .user('Fix it.')
      .assistant('Looking.', { toolCalls: [{ id: 'c1', name: 'read_file', input: { path: 'a.ts' } }] })
      .toolResult('c1', 'content')
      .assistant('Found it.')
      .assistant('And fixed it.')
      .user('Thanks.')
      .assistant('Welcome.')
      .build();
    expect(callPoints(thread)).toEqual([1, 3, 6]);
    const prefix = threadPrefix(thread, 3);
    expect(prefix.messages.map((message) => message.id)).toEqual(
      thread.messages.slice(0, 3).map((message) => message.id),
    );
    expect(prefix.version).toBe(thread.messages[2]!.seq);
  });
});

function emptyDrops() {
  return { messages: 0, summaries: 0, trimmedSummaries: 0, summaryItems: 0, clearedResults: 0 };
}
