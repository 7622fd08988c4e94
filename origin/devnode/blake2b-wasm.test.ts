import { blake2b } from "@noble/hashes/blake2.js";
import { describe, expect, it } from "vitest";
import { personal } from "../chain/hashes.ts";
import { blake2b256 } from "./blake2b-wasm.ts";
import { blockRandom } from "./prng.ts";

describe("WebAssembly BLAKE2b-256", () => {
  it("equals @noble/hashes for every length around the block boundaries and split inputs", () => {
    const rand = blockRandom("blake", 0, 0);
    const tag = personal("ZTxIdOrcActCHash");
    for (const n of [0, 1, 31, 32, 127, 128, 129, 255, 256, 257, 1000, 4096, 10_001]) {
      const data = rand.bytes(n);
      const want = Buffer.from(blake2b(data, { dkLen: 32, personalization: tag })).toString("hex");
      const cut = Math.floor(n / 3);
      const parts = [data.subarray(0, cut), new Uint8Array(0), data.subarray(cut)];
      expect(Buffer.from(blake2b256(tag, parts)).toString("hex")).toBe(want);
    }
  });

  it("uses the personalization (different tags give different digests)", () => {
    const a = blake2b256(personal("ZTxIdHeadersHash"), [Uint8Array.of(1)]);
    const b = blake2b256(personal("ZTxIdTranspaHash"), [Uint8Array.of(1)]);
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(false);
  });
});
