import { createHash } from 'node:crypto';

/** Keep ids to characters every store and URL accepts. */
export function sanitizeId(raw: string): string {
  const cleaned = raw.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '');
  return cleaned === '' ? 'id' : cleaned;
}

export function shortHash(text: string, length = 12): string {
  return createHash('sha256').update(text).digest('hex').slice(0, length);
}

/** Ids stay under `maxLength`: longer ones keep their start and gain a hash of the whole. */
export function boundedId(raw: string, maxLength: number): string {
  if (raw.length <= maxLength) return raw;
  const hash = shortHash(raw, 16);
  return `${raw.slice(0, maxLength - hash.length - 1)}-${hash}`;
}

/** Hands out unique ids: the first request for a base gets it, later ones get `base.2`, `base.3`. */
export class IdAllocator {
  private readonly used = new Set<string>();

  allocate(base: string): string {
    const clean = boundedId(sanitizeId(base), 160);
    if (!this.used.has(clean)) {
      this.used.add(clean);
      return clean;
    }
    for (let suffix = 2; ; suffix += 1) {
      const candidate = `${clean}.${suffix}`;
      if (!this.used.has(candidate)) {
        this.used.add(candidate);
        return candidate;
      }
    }
  }
}
