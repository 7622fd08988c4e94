import {
  assertRangeIndex,
  type LevelSpan,
  levelObjectKey,
  rangeFolder,
  rangeIndexName,
  shardName,
} from "../range/keys.ts";

/**
 * Keys of the node-free history objects (proto/range-format.md §Keys, §Node-free history): per
 * range beside its other objects, per index level in the level's folder as the hash index names
 * its shards. Computed, never listed.
 */

function rangeObjectKey(network: string, rangeSize: number, index: number, suffix: string): string {
  assertRangeIndex(index);
  return `${rangeFolder(network, rangeSize)}${rangeIndexName(index)}.${suffix}`;
}

/** `v1/<network>/r<size>/NNNNNNNN.raw.bin`: the range's raw blocks, framed. */
export function rawBlocksKey(network: string, rangeSize: number, index: number): string {
  return rangeObjectKey(network, rangeSize, index, "raw.bin");
}

/** `v1/<network>/r<size>/NNNNNNNN.txs.bin`: where each block and transaction sits in the raw blocks. */
export function txTableKey(network: string, rangeSize: number, index: number): string {
  return rangeObjectKey(network, rangeSize, index, "txs.bin");
}

/** `v1/<network>/r<size>/txid/<FIRST>-<LAST>/<SHARD>.bin`: a transaction index shard. */
export function txIndexShardKey(level: LevelSpan, shard: number): string {
  return levelObjectKey(level, "txid", `${shardName(shard)}.bin`);
}

/** `v1/<network>/r<size>/taddr/<FIRST>-<LAST>/<SHARD>.dir.bin`: an address index shard's directory. */
export function addressDirectoryKey(level: LevelSpan, shard: number): string {
  return levelObjectKey(level, "taddr", `${shardName(shard)}.dir.bin`);
}

/** `v1/<network>/r<size>/taddr/<FIRST>-<LAST>/<SHARD>.rec.bin`: an address index shard's records. */
export function addressRecordsKey(level: LevelSpan, shard: number): string {
  return levelObjectKey(level, "taddr", `${shardName(shard)}.rec.bin`);
}
