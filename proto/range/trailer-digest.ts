import { sha256 } from "@noble/hashes/sha2.js";
import type { CodecOptions } from "./encode.ts";

/** SHA-256 that answers asynchronously: WebCrypto's `crypto.subtle.digest`, native in workerd. */
export type AsyncSha256 = (bytes: Uint8Array) => Promise<Uint8Array>;

/** The trailer of a metadata object and of a hash-index shard: SHA-256 of every preceding byte. */
const TRAILER_BYTES = 32;

/**
 * Codec options for decoding `object` whose trailer digest `digest` has already computed. The
 * decoders are synchronous and pure (shared by the origin and the edge); WebCrypto's digest is
 * async. In workerd it is native, where the decoders' JavaScript SHA-256 costs ≈ 1.6 ms of CPU per
 * 60 KB metadata object, most of a random GetBlock's isolate time (bench/edge-profile.ts). So the
 * caller hashes first, and the decoder's `sha256` answers that digest for exactly the span it
 * covers; any other span is hashed by `fallback.sha256` (or the JavaScript one).
 */
export async function withTrailerDigest(
  object: Uint8Array,
  digest: AsyncSha256,
  fallback: CodecOptions = {},
): Promise<CodecOptions> {
  if (object.length < TRAILER_BYTES) return fallback;
  const covered = object.subarray(0, object.length - TRAILER_BYTES);
  const known = await digest(covered);
  const base = fallback.sha256 ?? sha256;
  return {
    ...fallback,
    sha256: (bytes) => {
      if (
        bytes.buffer === covered.buffer &&
        bytes.byteOffset === covered.byteOffset &&
        bytes.length === covered.length
      )
        return known;
      return base(bytes);
    },
  };
}

/** WebCrypto's SHA-256, where the runtime has it (workerd, Node ≥ 19, browsers). */
export const webCryptoSha256: AsyncSha256 = async (bytes) =>
  new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>));
