/**
 * The origin's port to object storage: where sealed ranges and head objects are written. One
 * small interface, one adapter per backend (directory, S3). Keys are relative to the store's
 * root or prefix; they come from proto/range/keys.ts.
 */
export interface BlobStore {
  /**
   * Writes an object atomically: readers see the old object or the whole new one, never a part.
   * Resolves only once the object is durable (the head is written after what it points to).
   */
  put(key: string, bytes: Uint8Array, opts?: PutOptions): Promise<void>;
  /** The object's bytes (or a byte range of them), or null when the key is absent. */
  get(key: string, range?: ByteRange): Promise<Uint8Array | null>;
  /** Size and entity tag, or null when absent. */
  stat(key: string): Promise<BlobInfo | null>;
  /** Every key starting with `prefix`, sorted. For bootstrap and audits, never the read path. */
  list(prefix: string): Promise<string[]>;
}

export interface PutOptions {
  contentType?: string;
  /** Sealed objects: never change, cacheable for a year. Not for the head. */
  immutable?: boolean;
}

/** `length` bytes from `offset`; a range past the end returns the bytes that exist. */
export interface ByteRange {
  offset: number;
  length: number;
}

export interface BlobInfo {
  size: number;
  etag: string;
}

/** Cache-Control for sealed objects (immutable: a key's bytes never change). */
export const IMMUTABLE_CACHE_CONTROL = "public, max-age=31536000, immutable";
/** Cache-Control for the head: mutable, so caches revalidate (the edge caches it ≤ 1–2 s itself). */
export const HEAD_CACHE_CONTROL = "no-cache";
