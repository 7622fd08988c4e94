import { blake2b } from "@noble/hashes/blake2.js";
import { describe, expect, it } from "vitest";
import { blake2b256, blake2bBackend, useBlake2bBackend } from "./blake2b.ts";
import { personal } from "./hashes.ts";

describe("blake2b256", () => {
  it("runs on WebAssembly under Node", () => {
    expect(blake2bBackend()).toBe("wasm");
  });

  it("equals @noble/hashes for split inputs of every length across block boundaries", () => {
    const tag = personal("ZTxIdSOutM__Hash");
    const data = Uint8Array.from({ length: 1100 }, (_, i) => (i * 131 + 7) & 0xff);
    for (let n = 0; n <= data.length; n += 37) {
      const whole = data.subarray(0, n);
      const parts = [whole.subarray(0, n >> 2), whole.subarray(n >> 2, n >> 1), whole.subarray(n >> 1)];
      const ref = blake2b(whole, { dkLen: 32, personalization: tag });
      expect(blake2b256(tag, parts)).toEqual(ref);
      expect(blake2b256(tag, [whole])).toEqual(ref);
    }
    expect(blake2b256(tag, [])).toEqual(blake2b(new Uint8Array(0), { dkLen: 32, personalization: tag }));
  });

  it("equals @noble/hashes at the 128-byte block edges and past the 16 KB gathering buffer", () => {
    const tag = personal("ZTxIdOrcActCHash");
    for (const n of [1, 127, 128, 129, 255, 256, 257, 4096, 10_001, 40_000]) {
      const data = Uint8Array.from({ length: n }, (_, i) => (i * 197 + 3) & 0xff);
      const cut = Math.floor(n / 3);
      const parts = [data.subarray(0, cut), new Uint8Array(0), data.subarray(cut)];
      expect(blake2b256(tag, parts)).toEqual(blake2b(data, { dkLen: 32, personalization: tag }));
    }
  });

  it("uses the personalization (different tags give different digests)", () => {
    const one = [Uint8Array.of(1)];
    expect(blake2b256(personal("ZTxIdHeadersHash"), one)).not.toEqual(
      blake2b256(personal("ZTxIdTranspaHash"), one),
    );
  });

  it("gives the same digests on the @noble fallback", () => {
    const tag = personal("ZTxIdHeadersHash");
    const parts = [Uint8Array.of(5, 0, 0, 128), new Uint8Array(300).fill(9)];
    const viaWasm = blake2b256(tag, parts);
    useBlake2bBackend("noble");
    try {
      expect(blake2bBackend()).toBe("noble");
      expect(blake2b256(tag, parts)).toEqual(viaWasm);
    } finally {
      useBlake2bBackend("wasm");
    }
  });
});
