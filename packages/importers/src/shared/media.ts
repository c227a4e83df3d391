import type { ImagePart } from '@compactor/core';

const extensionMediaTypes: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  bmp: 'image/bmp',
};

/** The media type an image URL most likely has, from its extension; `image/*` when unknown. */
export function imageMediaTypeFromUrl(url: string): string {
  const path = url.split(/[?#]/)[0] ?? url;
  const extension = path.split('.').pop()?.toLowerCase() ?? '';
  return extensionMediaTypes[extension] ?? 'image/*';
}

/** An image part from a URL, decoding `data:` URLs into base64 sources. */
export function imagePartFromUrl(url: string, mediaType?: string): ImagePart {
  const dataUrl = /^data:([^;,]+)?(;base64)?,(.*)$/s.exec(url);
  if (dataUrl) {
    const data = dataUrl[2]
      ? (dataUrl[3] ?? '')
      : Buffer.from(decodeURIComponent(dataUrl[3] ?? '')).toString('base64');
    return {
      type: 'image',
      mediaType: mediaType ?? dataUrl[1] ?? 'image/*',
      source: { kind: 'base64', data },
    };
  }
  return { type: 'image', mediaType: mediaType ?? imageMediaTypeFromUrl(url), source: { kind: 'url', url } };
}

export function base64ImagePart(data: string, mediaType: string | undefined): ImagePart {
  return { type: 'image', mediaType: mediaType || 'image/*', source: { kind: 'base64', data } };
}
