import type { SpanReadOptions } from "../../proto/range/index.ts";

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
  put(key: string, body: Body, opts?: PutOptions): Promise<void>;
  /**
   * The object's bytes (or a byte range of them), or null when the key is absent. `opts.into`: the
   * buffer to read into (the caller's BufferPool, buffer-pool.ts); a store that receives its bytes
   * in pieces of its own (S3) may ignore it.
   */
  get(key: string, range?: ByteRange, opts?: SpanReadOptions): Promise<Uint8Array | null>;
  /** Size and entity tag, or null when absent. */
  stat(key: string): Promise<BlobInfo | null>;
  /** Every key starting with `prefix`, sorted. For bootstrap and audits, never the read path. */
  list(prefix: string): Promise<string[]>;
  /**
   * Removes these objects; a key already absent is no error. Only for objects no head names any
   * longer (superseded index levels, origin/index/level-sweeper.ts): sealed objects are never
   * deleted.
   */
  delete(keys: readonly string[]): Promise<void>;
}

/**
 * An object's bytes: one buffer; parts that are the object one after another; or a local file.
 * Parts let a writer send a large object built from many buffers (a range's raw-block object: one
 * frame per block) without first copying them into one (proto/frame.ts `frameParts`); a file, one
 * that was written to disk as it grew and is never held in memory whole (origin/history/raw-spool.ts).
 */
export type Body = MemoryBody | FileBody;

/** A body in memory: one buffer, or parts. */
export type MemoryBody = Uint8Array | readonly Uint8Array[];

/** The first `length` bytes of a local file, read while the object is written (body-io.ts). */
export interface FileBody {
  file: string;
  length: number;
  /**
   * Nothing writes the file again once it is handed out (its writer may only unlink it): a store
   * on the same filesystem may then hard-link it as the object instead of copying its bytes.
   */
  frozen?: boolean;
}

export function isFileBody(body: Body): body is FileBody {
  return !(body instanceof Uint8Array) && !Array.isArray(body);
}

/** Bytes in a body. */
export function bodyLength(body: Body): number {
  if (body instanceof Uint8Array) return body.length;
  if (isFileBody(body)) return body.length;
  let n = 0;
  for (const part of body) n += part.length;
  return n;
}

/** A body's parts (one for a single buffer). */
export function bodyParts(body: MemoryBody): readonly Uint8Array[] {
  return body instanceof Uint8Array ? [body] : body;
}

/**
 * Bytes `from..to` (exclusive) of a body as one buffer: a view when they lie in one part, else a
 * copy of just those bytes (a multipart upload's part, a single PUT's body).
 */
export function bodySlice(body: MemoryBody, from: number, to: number): Uint8Array {
  const out = new Uint8Array(Math.max(0, to - from));
  let at = 0; // offset of `part` in the body
  for (const part of bodyParts(body)) {
    const start = Math.max(from, at);
    const end = Math.min(to, at + part.length);
    if (start < end) {
      if (start === from && end === to) return part.subarray(start - at, end - at);
      out.set(part.subarray(start - at, end - at), start - from);
    }
    at += part.length;
    if (at >= to) break;
  }
  return out;
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
