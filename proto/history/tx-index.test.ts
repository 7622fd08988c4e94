import { describe, expect, it } from "vitest";
import { LightedgeError } from "../errors.ts";
import { LoadCache } from "../lru.ts";
import type { HeadObject } from "../range/head.ts";
import { webCryptoSha256 } from "../range/trailer-digest.ts";
import {
  decodeTxEntry,
  decodeTxShard,
  encodeTxEntry,
  encodeTxIndexLevel,
  findTx,
  headHistoryLevels,
  lookupTx,
  rawBlocksKey,
  type TxIndexEntry,
  type TxShard,
  txIndexLevel,
  txIndexObjects,
  txIndexShardKey,
} from "./index.ts";
import { corruptMessage, resealed, storeHistory, syntheticHistory } from "./testing.ts";

const span = { network: "testnet", rangeSize: 100, firstIndex: 4, lastIndex: 5 };
const LOW = 400;

/** Entries with random txids at heights of `span`, one per transaction. */
function randomEntries(count: number, firstByte?: number): TxIndexEntry[] {
  return Array.from({ length: count }, (_, i) => {
    const wireTxid = crypto.getRandomValues(new Uint8Array(32));
    if (firstByte !== undefined) wireTxid[0] = firstByte;
    return { wireTxid, height: LOW + (i % 200), index: i % 7, offset: i * 300, length: 250 };
  });
}

const sortedBytes = (entries: TxIndexEntry[]) =>
  entries.map(encodeTxEntry).sort((a, b) => Buffer.compare(a, b));

describe("transaction index entries", () => {
  it("are 52 bytes that decode to what was encoded, offsets beyond 32 bits included", () => {
    const entry = {
      wireTxid: new Uint8Array(32).fill(9),
      height: 3_000_000,
      index: 4,
      offset: 2 ** 40 + 3,
      length: 77,
    };
    const bytes = encodeTxEntry(entry);
    expect(bytes.length).toBe(52);
    expect(decodeTxEntry(bytes)).toEqual(entry);
    expect(() => encodeTxEntry({ ...entry, wireTxid: new Uint8Array(31) })).toThrow(/32 bytes/);
  });
});

describe("a transaction index level", () => {
  it("is cut by the top bits of the txid and finds every entry", () => {
    const entries = randomEntries(3000);
    const { level, objects } = txIndexObjects(span, entries);
    expect(level).toMatchObject({ count: 3000, bits: 2 });
    expect(objects.map((o) => o.key)).toEqual([0, 1, 2, 3].map((s) => txIndexShardKey(span, s)));
    const shards = objects.map((o, s) => decodeTxShard(o.bytes, level, s));
    expect(shards.reduce((n, s) => n + s.count, 0)).toBe(3000);
    for (const e of entries) {
      const { wireTxid, ...location } = e;
      expect(findTx(shards[wireTxid[0]! >> 6]!, wireTxid)).toEqual(location);
    }
    for (let i = 0; i < 100; i++) {
      const random = crypto.getRandomValues(new Uint8Array(32));
      expect(findTx(shards[random[0]! >> 6]!, random)).toBeUndefined();
    }
  });

  it("writes every shard, empty ones too", () => {
    const { level, objects } = txIndexObjects(span, randomEntries(1025, 0x12));
    expect(level.bits).toBe(1);
    expect(objects.map((o) => o.bytes.length)).toEqual([48 + 52 * 1025 + 32, 48 + 32]);
    expect(decodeTxShard(objects[1]!.bytes, level, 1).count).toBe(0);
  });

  it("streams: yields each shard as soon as the next one starts, holding one", () => {
    const entries = sortedBytes(randomEntries(5000));
    const level = txIndexLevel(span, entries.length);
    let pulled = 0;
    function* source() {
      for (const e of entries) {
        pulled++;
        yield e;
      }
    }
    const shards = encodeTxIndexLevel(level, source());
    const first = shards.next().value!;
    const inFirst = decodeTxShard(first.bytes, level, 0).count;
    expect(pulled).toBe(inFirst + 1);
    expect([...shards].length).toBe(2 ** level.bits - 1);
  });

  it("answers the highest of a txid stored at two heights", () => {
    const [a] = randomEntries(1);
    const { level, objects } = txIndexObjects(span, [
      { ...a!, height: 450, index: 1 },
      { ...a!, height: 420, index: 2 },
    ]);
    expect(findTx(decodeTxShard(objects[0]!.bytes, level, 0), a!.wireTxid)).toMatchObject({
      height: 450,
      index: 1,
    });
  });

  it("refuses entries out of order, outside the level, mis-sized or miscounted, as the caller's error", () => {
    const badRequest = expect.objectContaining({ kind: "bad-request" });
    const entries = sortedBytes(randomEntries(10));
    const level = txIndexLevel(span, 10);
    const encode = (items: Uint8Array[], l = level) => [...encodeTxIndexLevel(l, items)];
    expect(() => encode([entries[1]!, entries[0]!, ...entries.slice(2)])).toThrow(/out of order/);
    expect(() => encode([entries[0]!, entries[0]!, ...entries.slice(2)])).toThrow(/out of order/);
    const outside = encodeTxEntry({ ...decodeTxEntry(entries[9]!), height: LOW - 1 });
    expect(() => encode([...entries.slice(0, 9), outside])).toThrow(/outside 400–599/);
    expect(() => encode([...entries.slice(0, 9), entries[9]!.subarray(1)])).toThrow(/52 bytes/);
    expect(() => encode(entries.slice(1))).toThrow(/9 entries in a level of 10/);
    // Across shards: an entry of shard 0 after one of shard 1.
    const two = sortedBytes(randomEntries(1025));
    const late = two.findIndex((e) => e[0]! >= 0x80);
    const crossed = [...two.slice(0, late + 1), two[0]!, ...two.slice(late + 1)];
    expect(() => [...encodeTxIndexLevel(txIndexLevel(span, 1026), crossed)]).toThrow(
      /out of order \(shard 0\)/,
    );
    expect(() => encode(entries.slice(1))).toThrow(badRequest);
  });
});

describe("a transaction index shard is corrupt", () => {
  const entries = randomEntries(20);
  const { level, objects } = txIndexObjects(span, entries);
  const good = objects[0]!.bytes;
  const edited = (edit: (view: DataView, bytes: Uint8Array) => void) => resealed(good, edit);
  const refusal = (bytes: Uint8Array, l = level, shard = 0) =>
    corruptMessage(() => decodeTxShard(bytes, l, shard));

  it("truncated, with another magic or version, padded, or with a flipped byte", () => {
    expect(refusal(good.subarray(0, 79))).toMatch(/truncated/);
    expect(refusal(edited((_, b) => (b[3] = 0)))).toMatch(/magic/);
    expect(refusal(edited((v) => v.setUint16(8, 7)))).toMatch(/version 7/);
    expect(refusal(edited((v) => v.setUint32(44, 21)))).toMatch(/size/);
    const flipped = good.slice();
    flipped[200] ^= 1;
    expect(refusal(flipped)).toMatch(/SHA-256/);
  });

  it("read under another key: level, shard, shard bits or network", () => {
    expect(refusal(good, { ...level, lastIndex: 6 })).toMatch(/describes testnet r100 4-5 shard 0\/1/);
    expect(refusal(good, level, 1)).toMatch(/describes/);
    expect(refusal(good, { ...level, bits: 1 })).toMatch(/describes/);
    expect(refusal(good, { ...level, network: "mainnet" })).toMatch(/describes/);
    expect(refusal(edited((_, b) => (b[11] = 0)))).toMatch(/bad network name/);
  });

  it("with an entry of another shard, out of order, or outside the level's heights", () => {
    // Claimed as the shard of 2 that entry 0 is not in.
    const other = good[48]! >> 7 ? 0 : 1;
    const wrongShard = edited((v, b) => {
      b[10] = 1;
      v.setUint32(40, other);
    });
    expect(refusal(wrongShard, { ...level, bits: 1 }, other)).toMatch(/entry 0: belongs to another shard/);
    const swapped = edited((_, b) => {
      const first = b.slice(48, 100);
      b.copyWithin(48, 100, 152);
      b.set(first, 100);
    });
    expect(refusal(swapped)).toMatch(/entry 1: out of order/);
    expect(refusal(edited((v) => v.setUint32(48 + 52 * 5 + 32, 600)))).toMatch(
      /entry 5: height 600 is outside/,
    );
  });
});

describe("lookupTx", () => {
  const history = syntheticHistory({ rangeSize: 10, firstIndex: 2, rangeCount: 7, addresses: 5 });
  const { objects, head } = storeHistory(history, 3);
  const reads: string[] = [];
  const source = {
    read: async (key: string) => {
      reads.push(key);
      return objects.get(key) ?? null;
    },
  };

  it("finds every sealed transaction, base and recent level, with at most two reads", async () => {
    expect(headHistoryLevels(head)!.map((l) => [l.txid.firstIndex, l.txid.lastIndex])).toEqual([
      [2, 7],
      [8, 8],
    ]);
    for (const [i, entry] of history.entries.entries()) {
      reads.length = 0;
      const { wireTxid, ...location } = entry;
      const found = await lookupTx(i % 2 ? source : { ...source, digest: webCryptoSha256 }, head, wireTxid);
      expect(found).toEqual({ indexed: true, found: location });
      expect(reads.length).toBeLessThanOrEqual(2);
      const raw = objects.get(rawBlocksKey("regtest", 10, Math.floor(location.height / 10)))!;
      const block = history.blocks.find((b) => b.height === location.height)!;
      const tx = block.table.transactions[location.index]!;
      expect(raw.subarray(location.offset, location.offset + location.length)).toEqual(
        block.bytes.subarray(tx.offset, tx.offset + tx.length),
      );
    }
  });

  it("finds nothing for a txid no sealed block holds, and says when the head names no history", async () => {
    expect(await lookupTx(source, head, new Uint8Array(32).fill(0xee))).toEqual({
      indexed: true,
      found: undefined,
    });
    const { history: _, ...bare } = head;
    expect(await lookupTx(source, bare as HeadObject, new Uint8Array(32))).toEqual({ indexed: false });
    await expect(lookupTx(source, head, new Uint8Array(20))).rejects.toThrow(/32 bytes/);
  });

  it("keeps decoded shards: a second lookup reads nothing", async () => {
    const shards = new LoadCache<string, TxShard>({ maxEntries: 8, sharing: "in-flight" });
    await lookupTx({ ...source, shards }, head, history.entries[0]!.wireTxid);
    reads.length = 0;
    expect(await lookupTx({ ...source, shards }, head, history.entries[0]!.wireTxid)).toMatchObject({
      found: { height: 20 },
    });
    expect(reads).toEqual([]);
  });

  it("is corrupt when a shard the head names is absent or damaged", async () => {
    const missing = { read: async () => null };
    await expect(lookupTx(missing, head, history.entries[0]!.wireTxid)).rejects.toMatchObject({
      kind: "corrupt",
      message: expect.stringMatching(/missing/),
    });
    const damaged = {
      read: async (key: string) => {
        const bytes = objects.get(key)!.slice();
        bytes[60] ^= 1;
        return bytes;
      },
    };
    await expect(lookupTx(damaged, head, history.entries[0]!.wireTxid)).rejects.toBeInstanceOf(
      LightedgeError,
    );
  });
});
