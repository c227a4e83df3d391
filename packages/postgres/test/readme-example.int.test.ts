import { readFileSync } from 'node:fs';
import {
  describeWithPostgres,
  dropSchema,
  postgresForTests,
  uniqueSchemaName,
} from '@compactor/testkit/postgres';
import { expect, it } from 'vitest';
import { quickStart } from '../examples/quick-start.js';

describeWithPostgres(await postgresForTests(), 'PostgreSQL README example', (url) => {
  it('is the example file, verbatim', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const example = readFileSync(new URL('../examples/quick-start.ts', import.meta.url), 'utf8');
    expect(readme).toContain(`\`\`\`ts\n${example}\`\`\``);
  });

  it('runs: appends idempotently, reads the newest event, commits a plan, hears the lifecycle event', async () => {
    const schema = uniqueSchemaName('readme');
    try {
      const outcome = await quickStart(url, schema);
      expect(outcome.version).toBe(2);
      expect(outcome.duplicates).toBe(1);
      expect(outcome.newest.map((event) => event.eventId)).toEqual(['e2']);
      expect(outcome.commit).toEqual({ committed: true, version: 1 });
      expect(outcome.seen).toEqual(['compaction_completed']);
    } finally {
      await dropSchema(url, schema);
    }
  });
});
