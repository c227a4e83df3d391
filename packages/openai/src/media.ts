import type { ContentPart } from '@compactor/core';

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

/** A URL or a base64 data URL as our media source (a data URL keeps its media type). */
export function mediaFromUrl(
  url: string,
  fallbackMediaType: string,
): { mediaType: string; source: { kind: 'url'; url: string } | { kind: 'base64'; data: string } } {
  const match = DATA_URL.exec(url);
  if (match) return { mediaType: match[1]!, source: { kind: 'base64', data: match[2]! } };
  // A URL image has no media type on the wire; the renderer sends only the URL back.
  return { mediaType: fallbackMediaType, source: { kind: 'url', url } };
}

/** An image part from an `image_url` / `input_image` URL. */
export function imageFromUrl(url: string): ContentPart {
  return { type: 'image', ...mediaFromUrl(url, 'image/png') };
}

/** A document part from a file's data URL and name. */
export function documentFromFile(fileData: string, filename: string | undefined): ContentPart {
  return {
    type: 'document',
    ...mediaFromUrl(fileData, 'application/pdf'),
    ...(filename !== undefined ? { title: filename } : {}),
  };
}

/** Tool-call arguments as JSON when they parse; the raw string otherwise (nothing is lost). */
export function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
