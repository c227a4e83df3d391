import { artifactContentSha256, artifactIdFor } from '@compactor/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { contentSha256 } from '../src/artifact-store/content-sha256.js';

describe('the embedded store hashes content as core defines it (ADR-0281)', () => {
  it('any string, lone surrogates included, hashes to core’s digest', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }), fc.string()),
        (text) => {
          expect(contentSha256(text)).toBe(artifactContentSha256(text));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('any bytes hash to core’s digest', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 4096 }), (bytes) => {
        expect(contentSha256(bytes)).toBe(artifactContentSha256(bytes));
      }),
    );
  });

  it('derives the artifact id core derives, for any tenant and content (ADR-0348)', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.string({ unit: 'binary' }), (tenantId, content) => {
        const digest = contentSha256(content);
        expect(artifactIdFor(tenantId, digest, contentSha256)).toBe(artifactIdFor(tenantId, digest));
      }),
      { numRuns: 300 },
    );
  });

  it('a lone surrogate and its replacement character hash alike, as UTF-8 encoding makes them', () => {
    expect(contentSha256('a\uD800b')).toBe(artifactContentSha256('a\uFFFDb'));
    expect(contentSha256('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });
});
