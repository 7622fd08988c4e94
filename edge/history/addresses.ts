import {
  type AddressDirectory,
  type AddressInLevel,
  type AddressRecord,
  addressDirectoryKey,
  addressRecords,
  decodeAddressDirectory,
  findAddress,
  type HistoryIndexLevel,
  headHistoryLevels,
  historyIndexedTip,
} from "../../proto/history/index.ts";
import { itemKey32 } from "../../proto/history/layout.ts";
import { shardOf } from "../../proto/range/hash-index-layout.ts";
import { loadIndexObject } from "../../proto/range/hash-index-lookup.ts";
import type { HeadObject } from "../../proto/range/index.ts";
import { mapLimited, READS_IN_FLIGHT } from "./limited.ts";
import type { HistoryStore } from "./store.ts";

/**
 * Sealed addresses (proto/range-format.md §Transparent address index, Lookup) for a list of them:
 * each distinct directory shard of each level read once per call (and kept per isolate), however
 * many of the addresses it holds, then one ranged read of records per address and level holding it.
 */

/** What a call will read before it reads it: the directory shards its addresses fall in. */
export interface AddressPlan {
  /** The address index's levels, base first (height order). */
  levels: HistoryIndexLevel[];
  /**
   * The last height the levels cover: the origin answers for the heights above it (the sealed
   * tip, or below it while the origin's levels lag its head catching up with its node).
   */
  indexedTip: number;
  /** Address keys (21 bytes), in the caller's order. */
  keys: Uint8Array[];
  /** Each distinct directory the addresses fall in, by key. */
  directories: Map<string, { level: HistoryIndexLevel; shard: number }>;
  /** Of those, the ones the isolate does not hold: storage reads. */
  reads: number;
}

const shardAt = (level: HistoryIndexLevel, key: Uint8Array) => shardOf(itemKey32(key), level.bits);

/** The plan for these address keys; undefined when the head names no history (ask the origin). */
export function planAddresses(
  store: HistoryStore,
  head: HeadObject,
  keys: Uint8Array[],
): AddressPlan | undefined {
  const levels = headHistoryLevels(head)?.map((l) => l.taddr);
  const indexedTip = historyIndexedTip(head);
  if (levels === undefined || indexedTip === undefined) return undefined;
  const directories = new Map<string, { level: HistoryIndexLevel; shard: number }>();
  for (const key of keys)
    for (const level of levels) {
      const shard = shardAt(level, key);
      directories.set(addressDirectoryKey(level, shard), { level, shard });
    }
  let reads = 0;
  for (const key of directories.keys()) if (store.directories.peek(key) === undefined) reads++;
  return { levels, indexedTip, keys, directories, reads };
}

/** Per address (the plan's order), what each level holding it says of it, base first. */
export async function lookUpAddresses(store: HistoryStore, plan: AddressPlan): Promise<AddressInLevel[][]> {
  const loaded = new Map<string, AddressDirectory>();
  await mapLimited([...plan.directories], READS_IN_FLIGHT, async ([key, { level, shard }]) => {
    const directory = await loadIndexObject(
      store.source,
      store.directories,
      key,
      "history-taddr",
      (bytes, codec) => decodeAddressDirectory(bytes, level, shard, codec),
    );
    loaded.set(key, directory);
  });
  return plan.keys.map((key) =>
    plan.levels.flatMap((level) => {
      const shard = shardAt(level, key);
      const entry = findAddress(loaded.get(addressDirectoryKey(level, shard))!, key);
      return entry === undefined ? [] : [{ level, shard, entry }];
    }),
  );
}

/** Storage reads the records of `found` cost: one per address and level holding it. */
export function recordReads(found: readonly AddressInLevel[][]): number {
  let reads = 0;
  for (const levels of found) reads += levels.length;
  return reads;
}

/**
 * Records reading `found` would hold: each level's directory entry counts its address's (the read
 * checks the count), so a call over its record limit (edge/history/budget.ts) is known before
 * any is read.
 */
export function storedRecordCount(found: readonly AddressInLevel[][]): number {
  let records = 0;
  for (const levels of found) for (const { entry } of levels) records += entry.recordCount;
  return records;
}

/**
 * Per address, its records in every level holding it, in the stored order (height, position,
 * kind, index): one ranged read per address and level, each checked against its directory entry,
 * READS_IN_FLIGHT at a time.
 */
export async function readRecords(
  store: HistoryStore,
  found: readonly AddressInLevel[][],
): Promise<AddressRecord[][]> {
  const reads = found.flatMap((levels, address) => levels.map((inLevel) => ({ address, inLevel })));
  const out = found.map((): AddressRecord[][] => []);
  const read = await mapLimited(reads, READS_IN_FLIGHT, ({ inLevel }) =>
    addressRecords(store.source, [inLevel]),
  );
  // Levels come in height order for each address, so concatenating keeps the stored order.
  reads.forEach(({ address }, i) => {
    out[address]!.push(read[i]!);
  });
  return out.map((levels) => levels.flat());
}
