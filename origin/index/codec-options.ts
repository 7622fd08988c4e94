import { hash } from "node:crypto";
import type { CodecOptions } from "../../proto/range/index.ts";

/**
 * Range codec options for the origin: node:crypto's SHA-256 (native, SHA-NI) instead of the pure
 * @noble default, which was ~6 % of initial-sync CPU in sealing alone (bench/index-sync.ts).
 */
export const codecOptions: CodecOptions = Object.freeze({
  sha256: (bytes: Uint8Array): Uint8Array => {
    const digest = hash("sha256", bytes, "buffer");
    return new Uint8Array(digest.buffer, digest.byteOffset, digest.length);
  },
});
