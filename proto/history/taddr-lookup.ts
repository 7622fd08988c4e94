import { sha256 } from "@noble/hashes/sha2.js";
import { LightedgeError } from "../errors.ts";
import type { LoadCache } from "../lru.ts";
import {
  type IndexObjectSource,
  type LevelShardObject,
  loadLevelShards,
} from "../range/hash-index-lookup.ts";
import type { HeadObject } from "../range/head.ts";
import { ADDRESS_KEY_BYTES } from "./address.ts";
import { addressDirectoryKey, addressRecordsKey } from "./keys.ts";
import { type HistoryIndexLevel, headHistoryLevels, itemKey32 } from "./layout.ts";
import {
  type AddressDirectory,
  type AddressDirectoryEntry,
  decodeAddressDirectory,
  decodeAddressRecords,
  findAddress,
  recordsSpan,
} from "./taddr-index.ts";
import type { AddressRecord } from "./taddr-record.ts";

/**
 * An address's sealed history (proto/range-format.md §Node-free history, Transparent address
 * index, Lookup): the directory shard of each level holding its key (in parallel, cached), then for
 * its history one ranged read of its records per level holding it (in parallel). Pure: storage
 * comes in through `read`, as for the hash index.
 */

const WHERE = "history-taddr";

const DIRECTORIES: LevelShardObject<HistoryIndexLevel, AddressDirectory> = {
  where: WHERE,
  keyOf: addressDirectoryKey,
  decode: decodeAddressDirectory,
};

export interface AddressIndexSource extends IndexObjectSource {
  /** Decoded directories by key: immutable, so a reader keeps them as long as they fit. */
  directories?: LoadCache<string, AddressDirectory>;
}

/** An address in one level: what that level's directory says of it. */
export interface AddressInLevel {
  level: HistoryIndexLevel;
  shard: number;
  entry: AddressDirectoryEntry;
}

export type AddressLookup = { indexed: false } | { indexed: true; found: AddressInLevel[] };

/**
 * The levels holding this address (its 21-byte key), in height order: enough for its balance
 * (`addressBalance`). `found` empty: no sealed record; `indexed: false`: the head names no
 * history (ask a node).
 */
export async function addressDirectoryEntries(
  src: AddressIndexSource,
  head: HeadObject,
  addressKey: Uint8Array,
): Promise<AddressLookup> {
  if (addressKey.length !== ADDRESS_KEY_BYTES)
    throw new LightedgeError("bad-request", WHERE, "an address key is 21 bytes");
  const levels = headHistoryLevels(head);
  if (levels === undefined) return { indexed: false };
  const shards = await loadLevelShards(
    src,
    src.directories,
    levels.map((l) => l.taddr),
    itemKey32(addressKey),
    DIRECTORIES,
  );
  const found = shards.map(({ level, shard, decoded }) => {
    const entry = findAddress(decoded, addressKey);
    return entry && { level, shard, entry };
  });
  return { indexed: true, found: found.filter((f) => f !== undefined) };
}

/** Received minus spent over the levels holding the address: its sealed balance, in zatoshi. */
export function addressBalance(found: readonly AddressInLevel[]): bigint {
  let balance = 0n;
  for (const { entry } of found) balance += entry.received - entry.spent;
  return balance;
}

/**
 * The address's records in every level holding it, in the stored order (height, position, kind,
 * index): one ranged read per level, in parallel, each checked against its directory entry.
 */
export async function addressRecords(
  src: IndexObjectSource,
  found: readonly AddressInLevel[],
): Promise<AddressRecord[]> {
  const perLevel = await Promise.all(
    found.map(async ({ level, shard, entry }) => {
      const key = addressRecordsKey(level, shard);
      const bytes = await src.read(key, recordsSpan(entry));
      if (bytes === null) throw new LightedgeError("corrupt", WHERE, `index object ${key} is missing`);
      // The decoder hashes exactly these bytes, once: a native digest may answer for it.
      const digest = src.digest ? await src.digest(bytes) : (src.sha256 ?? sha256)(bytes);
      return decodeAddressRecords(bytes, level, entry, { sha256: () => digest });
    }),
  );
  return perLevel.flat();
}
