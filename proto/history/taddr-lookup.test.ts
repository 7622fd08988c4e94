import { describe, expect, it } from "vitest";
import { LoadCache } from "../lru.ts";
import type { HeadObject } from "../range/head.ts";
import { webCryptoSha256 } from "../range/trailer-digest.ts";
import type { Span } from "../range/types.ts";
import {
  type AddressDirectory,
  addressBalance,
  addressDirectoryEntries,
  addressRecords,
  compareRecordsAt,
  encodeAddressRecord,
  RECEIVED,
} from "./index.ts";
import { storeHistory, syntheticAddressKey, syntheticHistory } from "./testing.ts";

const ADDRESSES = 5;
const history = syntheticHistory({ rangeSize: 10, firstIndex: 2, rangeCount: 7, addresses: ADDRESSES });
const { objects, head } = storeHistory(history, 3);
const reads: string[] = [];
const source = {
  read: async (key: string, span?: Span) => {
    reads.push(key);
    const bytes = objects.get(key);
    return bytes === undefined ? null : span ? bytes.subarray(span.offset, span.offset + span.length) : bytes;
  },
};
const sorted = <T extends Parameters<typeof encodeAddressRecord>[0]>(records: T[]) =>
  [...records].sort((a, b) => compareRecordsAt(encodeAddressRecord(a), 0, encodeAddressRecord(b), 0));

describe("address lookups", () => {
  it("give every address its balance from the directories alone, and its whole history", async () => {
    for (let a = 0; a < ADDRESSES; a++) {
      const key = syntheticAddressKey(a);
      const mine = history.records.filter((r) => r.addressKey.every((b, i) => b === key[i]));
      reads.length = 0;
      const lookup = await addressDirectoryEntries(
        a % 2 ? source : { ...source, digest: webCryptoSha256 },
        head,
        key,
      );
      if (!lookup.indexed) throw new Error("not indexed");
      expect(reads.length).toBeLessThanOrEqual(2);
      expect(lookup.found.map((f) => f.level.firstIndex)).toEqual([2, 8]);
      const balance = mine.reduce((n, r) => (r.kind === RECEIVED ? n + r.value : n - r.value), 0n);
      expect(addressBalance(lookup.found)).toBe(balance);
      reads.length = 0;
      expect(
        await addressRecords(a % 2 ? source : { ...source, digest: webCryptoSha256 }, lookup.found),
      ).toEqual(sorted(mine));
      expect(reads.length).toBe(2);
    }
  });

  it("find nothing for an address with no sealed record, and say when the head names no history", async () => {
    const lookup = await addressDirectoryEntries(source, head, syntheticAddressKey(ADDRESSES));
    expect(lookup).toEqual({ indexed: true, found: [] });
    expect(await addressRecords(source, [])).toEqual([]);
    expect(addressBalance([])).toBe(0n);
    const { history: _, ...bare } = head;
    expect(await addressDirectoryEntries(source, bare as HeadObject, syntheticAddressKey(0))).toEqual({
      indexed: false,
    });
    await expect(addressDirectoryEntries(source, head, new Uint8Array(20))).rejects.toThrow(/21 bytes/);
  });

  it("keep decoded directories: a second lookup reads nothing", async () => {
    const directories = new LoadCache<string, AddressDirectory>({ maxEntries: 8, sharing: "settled" });
    const first = await addressDirectoryEntries({ ...source, directories }, head, syntheticAddressKey(1));
    reads.length = 0;
    expect(await addressDirectoryEntries({ ...source, directories }, head, syntheticAddressKey(1))).toEqual(
      first,
    );
    expect(reads).toEqual([]);
  });

  it("are corrupt when an object the head names is absent or damaged", async () => {
    const key = syntheticAddressKey(2);
    await expect(addressDirectoryEntries({ read: async () => null }, head, key)).rejects.toMatchObject({
      kind: "corrupt",
      message: expect.stringMatching(/\.dir\.bin is missing/),
    });
    const lookup = await addressDirectoryEntries(source, head, key);
    if (!lookup.indexed) throw new Error("not indexed");
    await expect(addressRecords({ read: async () => null }, lookup.found)).rejects.toMatchObject({
      kind: "corrupt",
      message: expect.stringMatching(/\.rec\.bin is missing/),
    });
    const flipped = {
      read: async (k: string, span?: Span) => {
        const bytes = (await source.read(k, span))!.slice();
        bytes[bytes.length - 1]! ^= 1;
        return bytes;
      },
    };
    await expect(addressRecords(flipped, lookup.found)).rejects.toMatchObject({
      kind: "corrupt",
      message: expect.stringMatching(/SHA-256/),
    });
  });
});
