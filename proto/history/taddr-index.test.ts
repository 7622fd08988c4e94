import { sha256 } from "@noble/hashes/sha2.js";
import { describe, expect, it } from "vitest";
import { toHex } from "../bytes.ts";
import {
  type AddressDirectoryEntry,
  type AddressRecord,
  addressDirectoryKey,
  addressIndexLevel,
  addressIndexObjects,
  addressRecordsKey,
  compareRecordsAt,
  decodeAddressDirectory,
  decodeAddressRecords,
  encodeAddressIndexLevel,
  encodeAddressRecord,
  findAddress,
  RECEIVED,
  recordsSpan,
  SPENT,
} from "./index.ts";
import { corruptMessage, resealed, syntheticAddressKey } from "./testing.ts";

const span = { network: "mainnet", rangeSize: 1000, firstIndex: 10, lastIndex: 11 };
const LOW = 10_000;
const corrupt = expect.objectContaining({ kind: "corrupt" });

/** Address `a` receives `perAddress` outputs and spends the first (when more than one). */
function recordsOf(a: number, perAddress: number, key = syntheticAddressKey(a)): AddressRecord[] {
  const out: AddressRecord[] = [];
  for (let k = 0; k < perAddress; k++) {
    const where = { wireTxid: sha256(Uint8Array.of(a, k)), offset: 100 * k, length: 90 };
    out.push({
      ...where,
      addressKey: key,
      kind: RECEIVED,
      height: LOW + a + k,
      txIndex: k,
      index: 1,
      value: BigInt(a + k + 1),
    });
    if (k === 1)
      out.push({
        ...where,
        addressKey: key,
        kind: SPENT,
        height: LOW + a + k,
        txIndex: k,
        index: 0,
        value: BigInt(a + 1),
        spent: { height: LOW + a, txIndex: 0, index: 1 },
      });
  }
  return out;
}

const sortedBytes = (records: AddressRecord[]) =>
  records.map(encodeAddressRecord).sort((a, b) => compareRecordsAt(a, 0, b, 0));
const sortedRecords = (records: AddressRecord[]) =>
  [...records].sort((a, b) => compareRecordsAt(encodeAddressRecord(a), 0, encodeAddressRecord(b), 0));

describe("an address index level", () => {
  const addresses = Array.from({ length: 1200 }, (_, a) => recordsOf(a, 1 + (a % 3)));
  const { level, objects } = addressIndexObjects(span, addresses.flat());
  const byKey = new Map(objects.map((o) => [o.key, o.bytes]));

  it("is cut by the top bits of the address hash, each shard a directory and its records", () => {
    expect(level).toMatchObject({ count: 1200, bits: 2 });
    expect(objects.map((o) => o.key)).toEqual(
      [0, 1, 2, 3].flatMap((s) => [addressDirectoryKey(span, s), addressRecordsKey(span, s)]),
    );
    const directories = [0, 1, 2, 3].map((s) =>
      decodeAddressDirectory(byKey.get(addressDirectoryKey(span, s))!, level, s),
    );
    expect(directories.reduce((n, d) => n + d.count, 0)).toBe(1200);
    for (const [s, d] of directories.entries())
      expect(byKey.get(addressRecordsKey(span, s))!.length).toBe(104 * d.recordCount);
  });

  it("gives every address its records, in order, with its totals", () => {
    const directories = [0, 1, 2, 3].map((s) =>
      decodeAddressDirectory(byKey.get(addressDirectoryKey(span, s))!, level, s),
    );
    for (const [a, records] of addresses.entries()) {
      const key = syntheticAddressKey(a);
      const shard = key[0]! >> 6;
      const entry = findAddress(directories[shard]!, key)!;
      const { offset, length } = recordsSpan(entry);
      const read = byKey.get(addressRecordsKey(span, shard))!.subarray(offset, offset + length);
      expect(decodeAddressRecords(read, level, entry)).toEqual(sortedRecords(records));
      const sum = (kind: number) => records.filter((r) => r.kind === kind).reduce((n, r) => n + r.value, 0n);
      expect([entry.received, entry.spent, entry.recordCount]).toEqual([
        sum(RECEIVED),
        sum(SPENT),
        records.length,
      ]);
    }
    const other = syntheticAddressKey(5000);
    const shard = other[0]! >> 6;
    expect(findAddress(directories[shard]!, other)).toBe(undefined);
  });

  it("adds totals exactly past 2^53 zatoshi", () => {
    const key = syntheticAddressKey(1);
    const big = [0, 1, 2].map((k) => ({ ...recordsOf(1, 1, key)[0]!, txIndex: k, value: 2n ** 62n - 1n }));
    const { level: l, objects: o } = addressIndexObjects(span, big);
    const entry = findAddress(decodeAddressDirectory(o[0]!.bytes, l, 0), key)!;
    expect(entry.received).toBe(3n * (2n ** 62n - 1n));
    expect(decodeAddressRecords(o[1]!.bytes, l, entry)).toHaveLength(3);
  });

  it("writes every shard, empty ones too", () => {
    const keys = Array.from({ length: 513 }, (_, a) =>
      Uint8Array.from([0x10, a >> 8, a & 0xff, ...new Uint8Array(17), 0]),
    );
    const { level: l, objects: o } = addressIndexObjects(
      span,
      keys.flatMap((key, a) => recordsOf(a, 1, key)),
    );
    expect(l.bits).toBe(1);
    expect(o.map((x) => x.bytes.length)).toEqual([48 + 88 * 513 + 32, 104 * 513, 48 + 32, 0]);
    expect(decodeAddressDirectory(o[2]!.bytes, l, 1)).toMatchObject({ count: 0, recordCount: 0 });
  });

  it("streams: yields a shard's objects as soon as the next shard starts", () => {
    const records = sortedBytes(addresses.slice(0, 600).flat());
    const l = addressIndexLevel(span, 600);
    let pulled = 0;
    const out = encodeAddressIndexLevel(
      l,
      (function* () {
        for (const r of records) {
          pulled++;
          yield r;
        }
      })(),
    );
    const directory = decodeAddressDirectory(out.next().value!.bytes, l, 0);
    expect(pulled).toBe(directory.recordCount + 1);
    expect(out.next().value!.bytes.length).toBe(104 * directory.recordCount);
  });

  it("refuses records out of order, malformed, outside the level or miscounted, as the caller's error", () => {
    const records = sortedBytes(addresses.slice(0, 3).flat());
    const l = addressIndexLevel(span, 3);
    const encode = (items: Uint8Array[], lv = l) => [...encodeAddressIndexLevel(lv, items)];
    const edit = (i: number, change: (view: DataView, bytes: Uint8Array) => void) => {
      const copy = records.map((r) => r.slice());
      change(new DataView(copy[i]!.buffer), copy[i]!);
      return copy;
    };
    expect(() => encode(records)).not.toThrow();
    expect(() => encode([records[1]!, records[0]!, ...records.slice(2)])).toThrow(/record 1: out of order/);
    expect(() => encode([records[0]!, records[0]!, ...records.slice(1)])).toThrow(/out of order/);
    expect(() => encode(edit(0, (_, b) => (b[21] = 3)))).toThrow(/record 0: kind 3/);
    expect(() => encode(edit(0, (v) => v.setUint32(24, LOW + 2000)))).toThrow(/outside 10000–11999/);
    expect(() => encode(edit(0, (_, b) => (b[20] = 2)))).toThrow(/bad address type/);
    expect(() => encode([records[0]!.subarray(1)])).toThrow(/104 bytes/);
    expect(() => encode(records, addressIndexLevel(span, 4))).toThrow(/3 addresses in a level of 4/);
    expect(() => encode(records, addressIndexLevel(span, 4))).toThrow(
      expect.objectContaining({ kind: "bad-request" }),
    );
  });
});

describe("an address directory is corrupt", () => {
  const { level, objects } = addressIndexObjects(
    span,
    [0, 1, 2, 3].flatMap((a) => recordsOf(a, 2)),
  );
  const good = objects[0]!.bytes;
  const edited = (edit: (view: DataView, bytes: Uint8Array) => void) => resealed(good, edit);
  const refusal = (bytes: Uint8Array, l = level, shard = 0) =>
    corruptMessage(() => decodeAddressDirectory(bytes, l, shard));
  const ENTRY = (i: number) => 48 + 88 * i;

  it("truncated, with another magic or version, padded, or with a flipped byte", () => {
    expect(refusal(good.subarray(0, 50))).toMatch(/truncated/);
    expect(refusal(edited((_, b) => (b[7] = 0)))).toMatch(/magic/);
    expect(refusal(edited((v) => v.setUint16(8, 0)))).toMatch(/version 0/);
    expect(refusal(edited((v) => v.setUint32(44, 3)))).toMatch(/size/);
    const flipped = good.slice();
    flipped[ENTRY(1) + 40] ^= 1;
    expect(refusal(flipped)).toMatch(/SHA-256/);
  });

  it("read under another key", () => {
    expect(refusal(good, { ...level, firstIndex: 9 })).toMatch(/describes mainnet r1000 10-11 shard 0\/1/);
    expect(refusal(good, level, 1)).toMatch(/describes/);
  });

  it("with an address of a bad type, of another shard, or out of order", () => {
    expect(refusal(edited((_, b) => (b[ENTRY(2) + 20] = 5)))).toMatch(/address 2: bad address type/);
    // Claimed as the shard of 2 that address 0 is not in.
    const other = good[48]! >> 7 ? 0 : 1;
    const wrongShard = edited((v, b) => {
      b[10] = 1;
      v.setUint32(40, other);
    });
    expect(refusal(wrongShard, { ...level, bits: 1 }, other)).toMatch(/address 0: belongs to another shard/);
    const swapped = edited((_, b) => {
      const first = b.slice(ENTRY(0), ENTRY(1));
      b.copyWithin(ENTRY(0), ENTRY(1), ENTRY(2));
      b.set(first, ENTRY(1));
    });
    expect(refusal(swapped)).toMatch(/address 1: out of order|records not contiguous/);
    const repeated = edited((_, b) => b.copyWithin(ENTRY(1), ENTRY(0), ENTRY(0) + 21));
    expect(refusal(repeated)).toMatch(/address 1: out of order/);
  });

  it("with records not contiguous from the first, or an address without records", () => {
    expect(refusal(edited((v) => v.setUint32(ENTRY(0) + 32, 1)))).toMatch(
      /address 0: records not contiguous/,
    );
    expect(refusal(edited((v) => v.setUint32(ENTRY(2) + 32, 0)))).toMatch(
      /address 2: records not contiguous/,
    );
    expect(refusal(edited((v) => v.setUint32(ENTRY(1) + 24, 0)))).toMatch(
      /address 1: records not contiguous/,
    );
  });
});

describe("an address's records are corrupt", () => {
  const key = syntheticAddressKey(7);
  const records = sortedBytes(recordsOf(7, 3));
  const { level } = addressIndexObjects(span, recordsOf(7, 3));
  /** A directory entry that matches `bytes` (digest, count, totals unless given). */
  const entryFor = (
    bytes: Uint8Array,
    totals = { received: 8n + 9n + 10n, spent: 8n },
  ): AddressDirectoryEntry => ({
    addressKey: key,
    recordCount: bytes.length / 104,
    firstRecord: 0,
    ...totals,
    digest: sha256(bytes),
  });
  const joined = (list: Uint8Array[]) => Uint8Array.from(list.flatMap((r) => [...r]));
  const edit = (i: number, change: (view: DataView, bytes: Uint8Array) => void) => {
    const copy = records.map((r) => r.slice());
    change(new DataView(copy[i]!.buffer), copy[i]!);
    return joined(copy);
  };
  const good = joined(records);

  it("unless whole, with the directory's digest and totals", () => {
    expect(decodeAddressRecords(good, level, entryFor(good))).toHaveLength(4);
    expect(() => decodeAddressRecords(good.subarray(104), level, entryFor(good))).toThrow(
      /312 bytes for 4 records/,
    );
    const flipped = good.slice();
    flipped[150] ^= 1;
    expect(() => decodeAddressRecords(flipped, level, entryFor(good))).toThrow(/SHA-256/);
    expect(() => decodeAddressRecords(good, level, entryFor(good, { received: 27n, spent: 9n }))).toThrow(
      /do not add up/,
    );
  });

  it("when a record is of another address or kind, outside the level, or out of order", () => {
    const cases: [Uint8Array, RegExp][] = [
      [edit(2, (_, b) => (b[0]! ^= 1)), /record 2: of another address/],
      [edit(1, (_, b) => (b[21] = 2)), /record 1: kind 2/],
      [edit(3, (v) => v.setUint32(24, 9_999)), /record 3: height 9999 is outside/],
      [joined([records[1]!, records[0]!, records[2]!, records[3]!]), /record 1: out of order/],
    ];
    for (const [bytes, message] of cases) {
      expect(() => decodeAddressRecords(bytes, level, entryFor(bytes)), toHex(bytes.subarray(0, 4))).toThrow(
        message,
      );
      expect(() => decodeAddressRecords(bytes, level, entryFor(bytes))).toThrow(corrupt);
    }
  });
});
