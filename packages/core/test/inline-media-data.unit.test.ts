import { describe, expect, it } from 'vitest';
import { inlineMediaData } from '../src/index.js';

/** ADR-0333: a `data:` URL is inline data, however it arrives. */
describe('inlineMediaData', () => {
  const PNG = 'iVBORw0KGgo=';

  it('reads base64 sources and data URLs as inline data, with the type a data URL names', () => {
    expect(inlineMediaData({ kind: 'base64', data: PNG })).toEqual({ data: PNG });
    expect(inlineMediaData({ kind: 'url', url: `data:image/png;base64,${PNG}` })).toEqual({
      data: PNG,
      mediaType: 'image/png',
    });
    // An adapter that passed the whole data URL through as "base64".
    expect(inlineMediaData({ kind: 'base64', data: `data:image/jpeg;base64,${PNG}` })).toEqual({
      data: PNG,
      mediaType: 'image/jpeg',
    });
  });

  it('re-encodes a percent-encoded data URL as base64', () => {
    const svg = '<svg xmlns="http://www.w3.org/2000/svg"/>';
    const read = inlineMediaData({ kind: 'url', url: `data:image/svg+xml,${encodeURIComponent(svg)}` });
    expect(read?.mediaType).toBe('image/svg+xml');
    expect(Buffer.from(read!.data, 'base64').toString('utf8')).toBe(svg);
  });

  it('leaves a remote URL and an artifact alone', () => {
    expect(inlineMediaData({ kind: 'url', url: 'https://example.com/a.png' })).toBeUndefined();
    expect(inlineMediaData({ kind: 'artifact', artifactId: 'art_1' })).toBeUndefined();
  });
});
