import { describe, expect, it } from "vitest";
import { decodeRangeMeta, encodeSealedRange } from "./index.ts";
import { syntheticRange } from "./testing.ts";
import { webCryptoSha256, withTrailerDigest } from "./trailer-digest.ts";

const encoded = encodeSealedRange(syntheticRange({ rangeSize: 50, index: 3 }));

describe("trailer digests computed ahead (WebCrypto)", () => {
  it("decode the same metadata as the decoder's own SHA-256", async () => {
    const codec = await withTrailerDigest(encoded.meta, webCryptoSha256);
    expect(decodeRangeMeta(encoded.meta, codec)).toEqual(decodeRangeMeta(encoded.meta));
  });

  it("still refuse a damaged object: the digest is of the bytes as read", async () => {
    const damaged = encoded.meta.slice();
    damaged[100]! ^= 1;
    const codec = await withTrailerDigest(damaged, webCryptoSha256);
    expect(() => decodeRangeMeta(damaged, codec)).toThrow(/SHA-256 mismatch/);
  });

  it("answer only the span they hashed; any other span is hashed afresh", async () => {
    const wrong = async () => new Uint8Array(32);
    const codec = await withTrailerDigest(encoded.meta, wrong);
    expect(() => decodeRangeMeta(encoded.meta, codec)).toThrow(/SHA-256 mismatch/);
    const other = encoded.meta.slice(0, 64);
    expect(codec.sha256!(other)).toEqual(new Uint8Array(await crypto.subtle.digest("SHA-256", other)));
  });
});
