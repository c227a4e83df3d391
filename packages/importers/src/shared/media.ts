import { type ImagePart, inlineMediaData } from '@compactor/core';

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
  const inline = inlineMediaData({ kind: 'url', url });
  if (inline) {
    return {
      type: 'image',
      mediaType: mediaType ?? inline.mediaType ?? 'image/*',
      source: { kind: 'base64', data: inline.data },
    };
  }
  return { type: 'image', mediaType: mediaType ?? imageMediaTypeFromUrl(url), source: { kind: 'url', url } };
}

export function base64ImagePart(data: string, mediaType: string | undefined): ImagePart {
  return { type: 'image', mediaType: mediaType || 'image/*', source: { kind: 'base64', data } };
}
