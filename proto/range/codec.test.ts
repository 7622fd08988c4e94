import { describe, expect, it } from "vitest";
import { decodeFrames, FRAME_HEADER_BYTES } from "../frame.ts";
import {
  blockInfo,
  blockSpan,
  decodeRangeMeta,
  encodeSealedRange,
  frameSpan,
  heightOfWireHash,
  lastWireHash,
  metaBytes,
  PROJECTIONS,
  verifySection,
} from "./index.ts";
import { syntheticRange, syntheticWireHash } from "./testing.ts";

const input = syntheticRange({ rangeSize: 50, index: 3 });
const encoded = encodeSealedRange(input);
const meta = decodeRangeMeta(encoded.meta);

describe("the sealed-range codec", () => {
  it("stores each projection as the blocks' frames, in height order, byte for byte", () => {
    for (const projection of PROJECTIONS) {
      const messages = [...decodeFrames(encoded.data[projection])];
      expect(messages.map((m) => m.flag)).toEqual(input.blocks.map(() => 0));
      expect(messages.map((m) => m.message)).toEqual(input.blocks.map((b) => b.messages[projection]));
    }
  });

  it("decodes the header it wrote", () => {
    expect(meta).toMatchObject({ version: 1, network: "testnet", rangeSize: 50, index: 3, firstHeight: 150 });
    expect(meta.lastHeight).toBe(199);
    expect(meta.parentWireHash).toEqual(syntheticWireHash(149));
    expect(encoded.meta.length).toBe(metaBytes(50, 3));
  });

  it("gives the span of any sub-range, ascending or descending, as one contiguous slice", () => {
    for (const projection of PROJECTIONS) {
      const span = blockSpan(meta, projection, 171, 160);
      expect(span).toEqual(blockSpan(meta, projection, 160, 171));
      const slice = encoded.data[projection].subarray(span.offset, span.offset + span.length);
      const got = [...decodeFrames(slice)].map((f) => f.message);
      expect(got).toEqual(input.blocks.slice(10, 22).map((b) => b.messages[projection]));
    }
  });

  it("gives each block's own frame span, which tiles the section exactly", () => {
    let next = 0;
    for (let h = 150; h <= 199; h++) {
      const span = frameSpan(meta, "full", h);
      expect(span.offset).toBe(next);
      expect(span.length).toBe(FRAME_HEADER_BYTES + input.blocks[h - 150]!.messages.full.length);
      next += span.length;
    }
    expect(next).toBe(encoded.data.full.length);
  });

  it("returns a block's hash, prevHash, time and tree sizes from the metadata alone", () => {
    for (const h of [150, 151, 175, 199]) {
      const b = input.blocks[h - 150]!;
      expect(blockInfo(meta, h)).toEqual({
        height: h,
        wireHash: b.wireHash,
        wirePrevHash: b.wirePrevHash,
        time: b.time,
        treeSizes: b.treeSizes,
      });
    }
    expect(lastWireHash(meta)).toEqual(syntheticWireHash(199));
  });

  it("finds a block's height by wire hash, and nothing for a foreign hash", () => {
    expect(heightOfWireHash(meta, syntheticWireHash(187))).toBe(187);
    expect(heightOfWireHash(meta, syntheticWireHash(200))).toBeUndefined();
    expect(heightOfWireHash(meta, new Uint8Array(3))).toBeUndefined();
  });

  it("accepts every intact section and rejects heights outside the range", () => {
    for (const projection of PROJECTIONS)
      expect(() => verifySection(meta, projection, encoded.data[projection])).not.toThrow();
    expect(() => blockSpan(meta, "shielded", 149, 150)).toThrow(/outside range 3/);
    expect(() => blockInfo(meta, 200)).toThrow(/outside range 3/);
  });

  it("encodes the same input to the same bytes (rewrites after a crash are identical)", () => {
    const again = encodeSealedRange(syntheticRange({ rangeSize: 50, index: 3 }));
    expect(again.meta).toEqual(encoded.meta);
    expect(again.data).toEqual(encoded.data);
  });

  it("handles a range of one block and an empty message", () => {
    const one = syntheticRange({
      rangeSize: 1,
      index: 7,
      sizes: () => ({ shielded: 0, full: 5, nullifiers: 0 }),
    });
    const e = encodeSealedRange(one);
    const m = decodeRangeMeta(e.meta);
    expect(blockSpan(m, "shielded", 7, 7)).toEqual({ offset: 0, length: 5 });
    expect(e.data.shielded).toEqual(new Uint8Array([0, 0, 0, 0, 0]));
  });
});

describe("the encoder refuses input that would store a wrong range", () => {
  it("rejects a block count other than the range size", () => {
    const short = syntheticRange({ rangeSize: 10, index: 1 });
    short.blocks.pop();
    expect(() => encodeSealedRange(short)).toThrow(expect.objectContaining({ kind: "bad-request" }));
  });

  it("rejects blocks at the wrong heights", () => {
    const shifted = syntheticRange({ rangeSize: 10, index: 1 });
    shifted.index = 2;
    expect(() => encodeSealedRange(shifted)).toThrow(/expected height 20/);
  });

  it("rejects blocks that do not chain", () => {
    const broken = syntheticRange({ rangeSize: 10, index: 1 });
    broken.blocks[4]!.wirePrevHash = syntheticWireHash(2);
    expect(() => encodeSealedRange(broken)).toThrow(expect.objectContaining({ kind: "chain-break" }));
  });

  it("rejects hashes that are not 32 bytes and tree sizes that are not u32", () => {
    const badHash = syntheticRange({ rangeSize: 2, index: 0 });
    badHash.blocks[1]!.wireHash = new Uint8Array(31);
    expect(() => encodeSealedRange(badHash)).toThrow(/32 bytes/);
    const badSize = syntheticRange({ rangeSize: 2, index: 0 });
    badSize.blocks[0]!.treeSizes.orchard = 2 ** 32;
    expect(() => encodeSealedRange(badSize)).toThrow(/u32/);
  });
});
