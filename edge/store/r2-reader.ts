import { LightedgeError } from "../../proto/errors.ts";
import { zeroLength } from "./http-object.ts";
import { normalizePrefix } from "./key-prefix.ts";
import type { ObjectReader } from "./object-reader.ts";

/**
 * Reads through the R2 binding: no signing, no HTTP hop, and the body R2 returns is the fastest
 * thing a Worker can stream (edge-streaming.md: ≈ 3 GB/s passed straight through).
 * A ranged read is one R2 call: the result's `size` is the whole object's, so callers check it
 * against the range metadata without a separate head() (one subrequest less per range object).
 */
export function createR2Reader(bucket: R2Bucket, prefix?: string): ObjectReader {
  const full = normalizePrefix(prefix);
  const fail = (key: string, cause: unknown) =>
    new LightedgeError("unavailable", "edge.store", `object store: ${key}: R2 failed`, { cause });
  const head = async (key: string) => {
    try {
      const object = await bucket.head(full + key);
      return object === null ? null : { size: object.size, etag: object.httpEtag };
    } catch (cause) {
      throw fail(key, cause);
    }
  };
  return {
    async get(key, range) {
      if (range?.length === 0) return zeroLength(await head(key), range.offset);
      let object: R2ObjectBody | null;
      try {
        object = await bucket.get(full + key, range ? { range } : undefined);
      } catch (cause) {
        // R2 refuses a range that starts at or past the end; the port answers no bytes instead.
        // Only then is a head() worth its subrequest (the fast path never asks for such a range).
        const info = range ? await head(key) : null;
        if (range && info !== null && range.offset >= info.size) return zeroLength(info, range.offset);
        if (range && info === null) return null;
        throw fail(key, cause);
      }
      if (object === null) return null;
      const base = { body: object.body, size: object.size, etag: object.httpEtag };
      if (!range) return base;
      return {
        ...base,
        range: { offset: range.offset, length: Math.min(range.length, object.size - range.offset) },
      };
    },
    head,
  };
}
