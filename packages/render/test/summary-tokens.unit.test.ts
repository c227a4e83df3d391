import { describe, expect, it } from 'vitest';
import { renderFixtures } from './support/fixtures.js';
import { renderFixture } from './support/render-helpers.js';
import { PROVIDERS } from './support/tokenizers.js';

/** `tokens.summary` splits the conversation for the inspector's context bar: the summaries' share of it. */
describe('tokens.summary', () => {
  const fixtures = renderFixtures();
  const named = (name: string) => fixtures.find((fixture) => fixture.name === name)!;

  for (const provider of PROVIDERS) {
    it(`counts the summary stand-ins the request carries (${provider})`, async () => {
      const withSummaries = await renderFixture(provider, named('summaries'));
      expect(withSummaries.tokens.summary).toBeGreaterThan(0);
      expect(withSummaries.tokens.summary).toBeLessThan(withSummaries.tokens.messages);

      const withoutSummaries = await renderFixture(provider, named('externalizations'));
      expect(withoutSummaries.tokens.summary).toBe(0);
    });
  }
});
