import { threadBuilder } from '@compactor/testkit/thread-builder';
import { createTokenizer, imageTokensByProvider } from '@compactor/tokenizer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { callPoints, threadPrefix } from '../src/eval/cache-replay.js';
import { CACHE_PRICES, CacheMeter, cacheMeterFor, costOf, requestBlocks } from '../src/eval/prompt-cache.js';

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

describe('the meter counts pictures as the provider bills them (ADR-0470)', () => {
  const claude = createTokenizer({ model: 'claude-sonnet-4-5' });
  const url = (name: string) => `https://example.com/pictures/${name}.jpg`;
  // The two formats the eval meters: OpenAI Chat (LoCoMo) and Anthropic (the coding runs).
  const formats = [
    {
      provider: 'openai-chat' as const,
      tokenizer,
      estimate: imageTokensByProvider.openai,
      picture: (name: string) => ({ type: 'image_url', image_url: { url: url(name) } }),
    },
    {
      provider: 'anthropic' as const,
      tokenizer: claude,
      estimate: imageTokensByProvider.anthropic,
      picture: (name: string) => ({ type: 'image', source: { type: 'url', url: url(name) } }),
    },
  ];
  const said = (content: unknown[]) => ({ role: 'user', content });
  const words = (text: string) => ({ type: 'text', text });

  for (const { provider, tokenizer: counter, estimate, picture } of formats) {
    const counted = (text: string) => counter.count(text);
    const textOf = (value: unknown) => counted(JSON.stringify(value));

    it(`${provider}: charges a picture the tokenizer's estimate, not its URL's JSON`, () => {
      const caption = words('Look at my new puppy!');
      const request = { messages: [said([caption, picture('puppy')])] };
      const call = cacheMeterFor(counter, provider).observe(request);
      const [block] = requestBlocks(request);
      const [opening, closing] = block!.split(JSON.stringify(picture('puppy')));
      expect(counter.countMediaPart(picture('puppy'), provider)).toBe(estimate);
      expect(call.requestTokens).toBe(counted(opening!) + estimate + counted(closing!));
      // The URL-text meter this replaces counted the picture as tens of tokens.
      expect(new CacheMeter(counted).observe(request).requestTokens).toBeLessThan(estimate / 10);
    });

    it(`${provider}: caches a picture whole when the prefix runs past it, not at all when it ends inside it`, () => {
      const caption = words('Look at my new puppy!');
      const first = { messages: [said([caption, picture('puppy'), words('Cute, right?')])] };
      // The same picture, different words after it: the prefix ends after the picture.
      const after = { messages: [said([caption, picture('puppy'), words("Cute, isn't he?")])] };
      const afterMeter = cacheMeterFor(counter, provider);
      afterMeter.observe(first);
      const kept = afterMeter.observe(after);
      const [block] = requestBlocks(after);
      const throughPicture =
        block!.indexOf(JSON.stringify(picture('puppy'))) + JSON.stringify(picture('puppy')).length;
      const shared = block!.slice(throughPicture);
      let same = 0;
      const firstRest = requestBlocks(first)[0]!.slice(throughPicture);
      while (shared[same] === firstRest[same]) same += 1;
      expect(kept.cachedTokens).toBe(
        counted(block!.slice(0, block!.indexOf(JSON.stringify(picture('puppy'))))) +
          estimate +
          counted(shared.slice(0, same)),
      );
      // Another picture whose URL differs only at its end: the prefix ends inside the picture.
      const before = { messages: [said([caption, picture('puppz'), words('Cute, right?')])] };
      const beforeMeter = cacheMeterFor(counter, provider);
      beforeMeter.observe(first);
      const broken = beforeMeter.observe(before);
      expect(broken.cachedTokens).toBe(
        counted(block!.slice(0, block!.indexOf(JSON.stringify(picture('puppy'))))),
      );
      expect(broken.requestTokens - broken.cachedTokens).toBeGreaterThan(estimate);
      // The URL-text meter counted most of the changed picture's URL as cached.
      const textMeter = new CacheMeter(counted);
      textMeter.observe(first);
      expect(textMeter.observe(before).cachedTokens).toBeGreaterThan(broken.cachedTokens);
    });

    it(`${provider}: a prefix ending before a picture's message leaves the picture uncached, one past it caches it`, () => {
      const history = [said([words('Hi!')]), said([words('Here is my dog.'), picture('dog')])];
      const meterOf = cacheMeterFor(counter, provider);
      meterOf.observe({ messages: history });
      const grown = meterOf.observe({ messages: [...history, said([words('Do you like him?')])] });
      expect(grown.cachedTokens).toBe(
        textOf(history[0]) + meterOf.observe({ messages: [history[1]] }).requestTokens,
      );
      const fresh = cacheMeterFor(counter, provider);
      fresh.observe({ messages: history });
      const rewritten = fresh.observe({ messages: [said([words('[Summary] they said hi')]), history[1]] });
      // The first block changed: the picture after it is written again, whole.
      expect(rewritten.requestTokens - rewritten.cachedTokens).toBeGreaterThan(estimate);
    });
  }

  it('finds a picture inside an Anthropic tool result', () => {
    const result = {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'c1',
          content: [words('screenshot:'), formats[1]!.picture('screen')],
        },
      ],
    };
    const call = cacheMeterFor(claude, 'anthropic').observe({ messages: [result] });
    expect(call.requestTokens).toBeGreaterThan(imageTokensByProvider.anthropic);
    expect(call.requestTokens).toBeLessThan(imageTokensByProvider.anthropic + 100);
  });

  it('counts requests without media exactly as the text meter does (differential)', () => {
    const text = fc.string({ maxLength: 40 });
    const message = fc.record({ role: fc.constantFrom('user', 'assistant'), text });
    const request = fc.array(message, { maxLength: 6 }).map((items) => ({
      messages: items.map((item) => ({ role: item.role, content: [words(item.text)] })),
    }));
    fc.assert(
      fc.property(fc.array(request, { minLength: 1, maxLength: 5 }), (requests) => {
        const media = cacheMeterFor(tokenizer, 'openai-chat');
        const plain = new CacheMeter(count);
        for (const each of requests) expect(media.observe(each)).toEqual(plain.observe(each));
      }),
      { numRuns: 150 },
    );
  });

  it('never caches more than the request, and charges every picture its estimate (property)', () => {
    const piece = fc.oneof(
      fc.string({ maxLength: 12 }).map((text) => words(text)),
      fc.constantFrom('a', 'ab', 'b').map((name) => formats[0]!.picture(name)),
    );
    const request = fc
      .array(fc.array(piece, { minLength: 1, maxLength: 4 }), { maxLength: 4 })
      .map((messages) => ({ messages: messages.map((content) => said(content)) }));
    fc.assert(
      fc.property(fc.array(request, { minLength: 2, maxLength: 4 }), (requests) => {
        const meterOf = cacheMeterFor(tokenizer, 'openai-chat');
        for (const each of requests) {
          const call = meterOf.observe(each);
          expect(call.cachedTokens).toBeGreaterThanOrEqual(0);
          expect(call.cachedTokens).toBeLessThanOrEqual(call.requestTokens);
          // Text tokens are few here: the uncached part holds every picture not cached whole.
          const pictures = JSON.stringify(each).split('image_url":{').length - 1;
          expect(call.requestTokens).toBeGreaterThanOrEqual(pictures * imageTokensByProvider.openai);
        }
      }),
      { numRuns: 150 },
    );
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
