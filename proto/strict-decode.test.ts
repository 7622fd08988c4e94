import { describe, expect, it } from "vitest";
import { BlockIDSchema, BlockRangeSchema } from "./index.ts";
import { decodeStrict } from "./strict-decode.ts";

describe("decodeStrict", () => {
  it("refuses a known field in the wrong wire type, which protobuf-es would read as its declared type", () => {
    // BlockID.height (uint64, varint) sent as fixed32 0x0fffffff… protobuf-es reads 4294967295.
    const fixed32 = new Uint8Array([0x0d, 0xff, 0xff, 0xff, 0x0f]);
    expect(() => decodeStrict(BlockIDSchema, fixed32)).toThrow(/wire type 5/);
    expect(() => decodeStrict(BlockIDSchema, new Uint8Array([0x0a, 1, 5]))).toThrow(/wire type 2/);
    expect(() => decodeStrict(BlockIDSchema, new Uint8Array([0x10, 5]))).toThrow(/hash/);
    // Nested: BlockRange.start.height as fixed64.
    const nested = new Uint8Array([0x0a, 9, 0x09, 1, 0, 0, 0, 0, 0, 0, 0]);
    expect(() => decodeStrict(BlockRangeSchema, nested)).toThrow(/height/);
  });

  it("reads well-formed messages and skips unknown fields", () => {
    expect(decodeStrict(BlockIDSchema, new Uint8Array([0x08, 5])).height).toBe(5n);
    expect(decodeStrict(BlockIDSchema, new Uint8Array([0x08, 5, 0x3d, 1, 2, 3, 4])).height).toBe(5n);
    const range = decodeStrict(BlockRangeSchema, new Uint8Array([0x0a, 2, 0x08, 3, 0x12, 2, 0x08, 9]));
    expect([range.start?.height, range.end?.height]).toEqual([3n, 9n]);
  });

  it("refuses a truncated message", () => {
    expect(() => decodeStrict(BlockIDSchema, new Uint8Array([0x12, 32, 1, 2, 3]))).toThrow();
  });
});
