import { describe, expect, it } from "vitest";
import {
  type AddressRecord,
  compareRecordsAt,
  decodeAddressRecord,
  encodeAddressRecord,
  RECEIVED,
  SPENT,
} from "./index.ts";
import { syntheticAddressKey } from "./testing.ts";

const received: AddressRecord = {
  addressKey: syntheticAddressKey(0),
  kind: RECEIVED,
  height: 1_000_000,
  txIndex: 3,
  index: 2,
  value: 2n ** 63n + 5n,
  wireTxid: new Uint8Array(32).fill(7),
  offset: 2 ** 36 + 1,
  length: 300,
};
const spent: AddressRecord = {
  ...received,
  kind: SPENT,
  height: 1_000_500,
  txIndex: 1,
  index: 0,
  spent: { height: 1_000_000, txIndex: 3, index: 2 },
};

describe("address records", () => {
  it("are 104 bytes laid out as the specification says, and decode to what was encoded", () => {
    const bytes = encodeAddressRecord(spent);
    expect(bytes.length).toBe(104);
    const view = new DataView(bytes.buffer);
    expect([bytes[21], view.getUint32(24), view.getUint32(28), view.getUint32(32)]).toEqual([
      1, 1_000_500, 1, 0,
    ]);
    expect([view.getUint32(88), view.getUint32(92), view.getUint32(96), view.getUint32(100)]).toEqual([
      1_000_000, 3, 2, 0,
    ]);
    expect(decodeAddressRecord(bytes)).toEqual(spent);
    expect(decodeAddressRecord(encodeAddressRecord(received))).toEqual(received);
    expect(encodeAddressRecord(received).subarray(88)).toEqual(new Uint8Array(16));
  });

  it("sort by address key, then height, position, kind and index", () => {
    const at = (r: Partial<AddressRecord>) =>
      encodeAddressRecord({ ...received, ...r, spent: r.kind === SPENT ? spent.spent : undefined });
    const order = (a: Uint8Array, b: Uint8Array) => Math.sign(compareRecordsAt(a, 0, b, 0));
    expect(order(at({ addressKey: syntheticAddressKey(1) }), at({}))).toBe(
      Math.sign(syntheticAddressKey(1)[0]! - syntheticAddressKey(0)[0]!),
    );
    expect(order(at({ height: 5, txIndex: 9 }), at({ height: 6, txIndex: 0 }))).toBe(-1);
    expect(order(at({ txIndex: 1, kind: SPENT }), at({ txIndex: 2, kind: RECEIVED }))).toBe(-1);
    expect(order(at({ kind: RECEIVED, index: 9 }), at({ kind: SPENT, index: 0 }))).toBe(-1);
    expect(order(at({ index: 1 }), at({ index: 2 }))).toBe(-1);
    expect(order(at({}), at({ value: 1n }))).toBe(0);
  });

  it("refuse bad input as the caller's error and bad bytes as corrupt", () => {
    expect(() => encodeAddressRecord({ ...received, addressKey: new Uint8Array(20) })).toThrow(/21 bytes/);
    expect(() => encodeAddressRecord({ ...received, wireTxid: new Uint8Array(31) })).toThrow(/32 bytes/);
    expect(() => encodeAddressRecord({ ...received, spent: spent.spent })).toThrow(/names the output/);
    expect(() => encodeAddressRecord({ ...spent, spent: undefined })).toThrow(/names the output/);
    const bytes = encodeAddressRecord(received);
    bytes[21] = 2;
    expect(() => decodeAddressRecord(bytes)).toThrow(expect.objectContaining({ kind: "corrupt" }));
  });
});
