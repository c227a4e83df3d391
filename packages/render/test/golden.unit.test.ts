import { describe, expect, it } from 'vitest';
import { validateProviderRequest } from '../src/validate/index.js';
import { renderFixtures } from './support/fixtures.js';
import { renderFixture } from './support/render-helpers.js';
import { independentCount, PROVIDERS } from './support/tokenizers.js';

/**
 * Golden prompts: the exact request per provider and fixture, plus the report fields that do not
 * depend on token counts (those change with the tokenizer's calibration, the bytes must not).
 * Every golden was reviewed by eye when accepted; a diff here is a format change to review.
 */
describe('golden prompts', () => {
  for (const fixture of renderFixtures()) {
    describe(fixture.name, () => {
      for (const provider of PROVIDERS) {
        it(`renders ${fixture.name} for ${provider}`, async () => {
          const result = await renderFixture(provider, fixture);
          const validation = validateProviderRequest(provider, result.request);
          expect(validation.errors).toEqual([]);
          expect(independentCount(provider, result.request)).toBeLessThanOrEqual(result.tokens.total);
          const { report } = result;
          const golden = {
            request: result.request,
            report: {
              stale: report.stale,
              messagesAfterPlan: report.messagesAfterPlan,
              counts: report.counts,
              emergencyFit: report.emergencyFit !== null,
              cacheBreakpoints: report.cacheBreakpoints,
              stablePrefixMessages: report.stablePrefixMessages,
              toolsAdded: report.toolsAdded,
              rehydration: {
                performed: report.rehydration.performed.map(({ tokens: _tokens, ...event }) => event),
                blocked: report.rehydration.blocked,
                nextState: report.rehydration.nextState,
              },
              warnings: report.warnings,
            },
          };
          await expect(`${JSON.stringify(golden, null, 2)}\n`).toMatchFileSnapshot(
            `./__golden__/${provider}/${fixture.name}.json`,
          );
        });
      }
    });
  }
});
