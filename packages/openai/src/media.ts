import { type ContentPart, inlineMediaData } from '@compactor/core';

/** A URL or a data URL as our media source (a data URL is inline data and keeps its media type, ADR-0333). */
export function mediaFromUrl(
  url: string,
  fallbackMediaType: string,
): { mediaType: string; source: { kind: 'url'; url: string } | { kind: 'base64'; data: string } } {
  const inline = inlineMediaData({ kind: 'url', url });
  if (inline)
    return {
      mediaType: inline.mediaType ?? fallbackMediaType,
      source: { kind: 'base64', data: inline.data },
    };
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
