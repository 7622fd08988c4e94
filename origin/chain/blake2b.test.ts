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
