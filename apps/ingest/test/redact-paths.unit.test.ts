import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withoutFilePaths } from '../src/errors/redact-paths.js';

describe('withoutFilePaths', () => {
  it('replaces absolute paths and keeps the rest of the message', () => {
    expect(withoutFilePaths('log /var/lib/compactor/events/t/a.log is damaged at byte 10')).toBe(
      'log <path> is damaged at byte 10',
    );
    expect(withoutFilePaths("ENOSPC: no space left on device, open '/tmp/x/y.log'")).toBe(
      "ENOSPC: no space left on device, open '<path>'",
    );
    expect(withoutFilePaths('thread t-1 was not found')).toBe('thread t-1 was not found');
  });

  it('leaves no multi-segment absolute path in any message', () => {
    const segment = fc.stringMatching(/^[A-Za-z0-9._-]{1,12}$/);
    fc.assert(
      fc.property(
        fc.string(),
        fc.array(segment, { minLength: 2, maxLength: 6 }),
        fc.string(),
        (before, parts, after) => {
          const path = `/${parts.join('/')}`;
          const message = withoutFilePaths(`${before} ${path} ${after}`);
          expect(message).not.toContain(` ${path} `);
        },
      ),
    );
  });
});
