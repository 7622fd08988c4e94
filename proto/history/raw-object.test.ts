import { describe, expect, it } from "vitest";
import { blockOfFrame, encodeRawBlocks, rawBlocks, rawBlocksParts } from "./index.ts";

const blocks = [
  Uint8Array.of(1, 2, 3),
  new Uint8Array(0),
  Uint8Array.from({ length: 300 }, (_, i) => i & 0xff),
];
const corrupt = expect.objectContaining({ kind: "corrupt" });

describe("the raw-block object", () => {
  it("is one data frame per block and gives the blocks back in order", () => {
    const raw = encodeRawBlocks(blocks);
    expect(raw.length).toBe(3 * 5 + 303);
    expect([...raw.subarray(0, 8)]).toEqual([0, 0, 0, 0, 3, 1, 2, 3]);
    expect([...rawBlocks(raw)]).toEqual(blocks);
    expect([...rawBlocks(new Uint8Array(0))]).toEqual([]);
  });

  it("as parts is the same bytes, with the blocks themselves as parts (not copies)", () => {
    const parts = rawBlocksParts(blocks);
    expect(Buffer.concat(parts).equals(encodeRawBlocks(blocks))).toBe(true);
    expect(parts.length).toBe(2 * blocks.length);
    expect(parts.filter((_, k) => k % 2 === 1)).toEqual(blocks);
    for (const [k, block] of blocks.entries()) expect(parts[2 * k + 1]).toBe(block);
  });

  it("gives the block of one frame read by its span", () => {
    const raw = encodeRawBlocks(blocks);
    expect(blockOfFrame(raw.subarray(8, 13))).toEqual(new Uint8Array(0));
    expect(() => blockOfFrame(raw.subarray(0, 13))).toThrow(/2 frames/);
  });

  it("is corrupt when torn, padded or flagged", () => {
    const raw = encodeRawBlocks(blocks);
    expect(() => [...rawBlocks(raw.subarray(0, raw.length - 1))]).toThrow(corrupt);
    expect(() => [...rawBlocks(raw.subarray(0, 10))]).toThrow(/torn frame header/);
    expect(() => [...rawBlocks(Uint8Array.from([...raw, 0]))]).toThrow(corrupt);
    const flagged = raw.slice();
    flagged[8] = 0x80;
    expect(() => [...rawBlocks(flagged)]).toThrow(/frame flag 128/);
  });
});
