import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { blockInfo, decodeRangeMeta, encodeSealedRange, PROJECTIONS } from "./index.ts";
import { specVectorLines } from "./spec-vectors.ts";

/** The test vector printed in proto/range-format.md must be what the codec writes and reads. */
const spec = readFileSync(new URL("../range-format.md", import.meta.url), "utf8");

const block = (tag: string) => specVectorLines(spec, tag).join("\n");

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
const ascii = (s: string) => new TextEncoder().encode(s);
const fill = (byte: number) => new Uint8Array(32).fill(byte);

const encoded = encodeSealedRange({
  network: "regtest",
  rangeSize: 2,
  index: 1,
  blocks: [
    {
      height: 2,
      wireHash: fill(0x22),
      wirePrevHash: fill(0x11),
      time: 1_700_000_000,
      treeSizes: { sapling: 1, orchard: 2, ironwood: 0 },
      messages: { shielded: ascii("s2"), full: ascii("full2"), nullifiers: ascii("n") },
    },
    {
      height: 3,
      wireHash: fill(0x33),
      wirePrevHash: fill(0x22),
      time: 1_700_000_075,
      treeSizes: { sapling: 3, orchard: 2, ironwood: 1 },
      messages: { shielded: ascii("s3"), full: ascii("full3!"), nullifiers: new Uint8Array(0) },
    },
  ],
});

describe("the specification's test vector", () => {
  it("matches the metadata object the codec writes, byte for byte", () => {
    expect(hex(encoded.meta)).toBe(block("vector-meta").replace(/\s+/g, ""));
  });

  it("matches the data objects the codec writes", () => {
    const lines = block("vector-data").trim().split("\n");
    expect(lines).toEqual(PROJECTIONS.map((p) => `${p} ${hex(encoded.data[p])}`));
  });

  it("decodes as the document describes it", () => {
    const meta = decodeRangeMeta(
      Uint8Array.from(Buffer.from(block("vector-meta").replace(/\s+/g, ""), "hex")),
    );
    expect(meta).toMatchObject({ network: "regtest", rangeSize: 2, index: 1, firstHeight: 2, lastHeight: 3 });
    expect(blockInfo(meta, 3)).toEqual({
      height: 3,
      wireHash: fill(0x33),
      wirePrevHash: fill(0x22),
      time: 1_700_000_075,
      treeSizes: { sapling: 3, orchard: 2, ironwood: 1 },
    });
  });
});
