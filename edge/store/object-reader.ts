/**
 * The edge's port to object storage: read-only, returning native bodies so a Worker can pipe
 * stored bytes to the client without touching each chunk in JS (edge-streaming.md).
 * Implemented for the R2 binding, S3 over fetch (SigV4), and a public base URL.
 */
export interface ObjectReader {
  /**
   * The object, or a byte range of it; null when absent. `size` is always the whole object's
   * size (so a caller can compare it with the range metadata before streaming a slice).
   */
  get(key: string, range?: ByteRange): Promise<StoredObject | null>;
  /** Size and entity tag without the body, or null when absent. */
  head(key: string): Promise<ObjectInfo | null>;
}

export interface ByteRange {
  offset: number;
  length: number;
}

export interface ObjectInfo {
  /** Whole object size in bytes. */
  size: number;
  /** Quoted HTTP entity tag, e.g. "\"abc…\"". */
  etag: string;
}

export interface StoredObject extends ObjectInfo {
  /** Native stream of the bytes (the range when one was asked for). */
  body: ReadableStream<Uint8Array>;
  /** The bytes the body holds, when a range was asked for (clamped to the object's end). */
  range?: ByteRange;
  /** The body's bytes, when the reader already holds them (a cache fill): no stream to drain. */
  bytes?: Uint8Array;
}
