import { type ArtifactMetadata, approximateBytes } from '@compactor/core';

/**
 * The metadata this process last wrote or read for each artifact it put, so a put of content it
 * already stored (same tenant, same bytes: same id) needs neither the per-id lock nor a read of
 * `<id>.json` (ADR-0345). Only an exclusive store keeps one: nothing else writes its directory, and
 * the store never deletes an artifact, so an entry stays true until the store itself rewrites it.
 * Bounded by bytes; the least recently used entry goes first.
 */
export class KnownArtifacts {
  /** Insertion order is recency order: least recently used first. */
  readonly #entries = new Map<string, { metadata: ArtifactMetadata; bytes: number }>();
  readonly #maxBytes: number;
  #bytes = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /** The remembered metadata: the object itself, which the caller must not hand out (see `copyOf`). */
  get(artifactId: string): ArtifactMetadata | undefined {
    const entry = this.#entries.get(artifactId);
    if (!entry) return undefined;
    this.#entries.delete(artifactId);
    this.#entries.set(artifactId, entry);
    return entry.metadata;
  }

  /** Remember what `<id>.json` now holds: its JSON form, as a read of it would give it. */
  remember(metadata: ArtifactMetadata): void {
    this.forget(metadata.artifactId);
    const stored = JSON.parse(JSON.stringify(metadata)) as ArtifactMetadata;
    const bytes = approximateBytes(stored);
    if (bytes > this.#maxBytes) return;
    this.#entries.set(metadata.artifactId, { metadata: stored, bytes });
    this.#bytes += bytes;
    for (const [artifactId, entry] of this.#entries) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#entries.delete(artifactId);
      this.#bytes -= entry.bytes;
    }
  }

  forget(artifactId: string): void {
    const entry = this.#entries.get(artifactId);
    if (!entry) return;
    this.#entries.delete(artifactId);
    this.#bytes -= entry.bytes;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** A caller's own copy of remembered metadata, as a read of `<id>.json` gives each caller its own. */
  static copyOf(metadata: ArtifactMetadata): ArtifactMetadata {
    return {
      ...metadata,
      ...(metadata.labels === undefined ? {} : { labels: { ...metadata.labels } }),
    };
  }
}
