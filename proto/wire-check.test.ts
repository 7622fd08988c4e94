import { create, toBinary } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import {
  AddressListSchema,
  BlockIDSchema,
  BlockRangeSchema,
  GetAddressUtxosArgSchema,
  PoolType,
  TxFilterSchema,
} from "./index.ts";
import { wireProblem } from "./wire-check.ts";

const bytes = (...b: number[]) => Uint8Array.from(b);

describe("wireProblem", () => {
  it("accepts what protobuf-es encodes, packed or not", () => {
    const range = create(BlockRangeSchema, {
      start: { height: 5n, hash: new Uint8Array(32) },
      end: { height: 2n ** 40n },
      poolTypes: [PoolType.SAPLING, PoolType.ORCHARD],
    });
    expect(wireProblem(BlockRangeSchema, toBinary(BlockRangeSchema, range))).toBeUndefined();
    // poolTypes unpacked (one varint per element) is valid too.
    expect(wireProblem(BlockRangeSchema, bytes(0x18, 2, 0x18, 3))).toBeUndefined();
    const utxos = create(GetAddressUtxosArgSchema, {
      addresses: ["t1a", "t1b"],
      startHeight: 1n,
      maxEntries: 3,
    });
    expect(wireProblem(GetAddressUtxosArgSchema, toBinary(GetAddressUtxosArgSchema, utxos))).toBeUndefined();
    const filter = create(TxFilterSchema, { block: { height: 1n }, index: 2n, hash: new Uint8Array(32) });
    expect(wireProblem(TxFilterSchema, toBinary(TxFilterSchema, filter))).toBeUndefined();
    expect(wireProblem(AddressListSchema, new Uint8Array(0))).toBeUndefined();
    // Unknown fields of any wire type are skipped, as protobuf requires.
    expect(wireProblem(BlockIDSchema, bytes(0x7d, 1, 2, 3, 4))).toBeUndefined();
  });

  it("refuses a height sent as fixed32, which protobuf-es would read as 4294967295", () => {
    expect(wireProblem(BlockIDSchema, bytes(0x0d, 0xff, 0xff, 0xff, 0x0f))).toMatch(/height: wire type 5/);
    expect(wireProblem(BlockIDSchema, bytes(0x0a, 1, 0))).toMatch(/height: wire type 2/);
    expect(wireProblem(BlockRangeSchema, bytes(0x0a, 5, 0x0d, 0xff, 0xff, 0xff, 0x0f))).toMatch(
      /^start\.height/,
    );
    expect(wireProblem(BlockRangeSchema, bytes(0x08, 1))).toMatch(/start: wire type 0/);
  });

  it("refuses truncated bodies and groups", () => {
    const full = toBinary(BlockIDSchema, create(BlockIDSchema, { height: 300n, hash: new Uint8Array(32) }));
    for (let n = 1; n < full.length; n++) {
      if (n === 3) continue; // a complete height field alone is a valid message
      expect(wireProblem(BlockIDSchema, full.subarray(0, n)), `${n} bytes`).toBeDefined();
    }
    expect(wireProblem(BlockIDSchema, bytes(0x0b))).toMatch(/wire type 3/);
    expect(wireProblem(BlockIDSchema, bytes(0x00))).toMatch(/field number 0/);
  });
});
