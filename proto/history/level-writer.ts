import { LightedgeError } from "../errors.ts";
import { shardOf } from "../range/hash-index-layout.ts";
import { itemKey32 } from "./layout.ts";

/**
 * What the history indexes' level encoders share (proto/range-format.md §Node-free history): they
 * take a level's items already sorted — millions, streamed from the writer's database — and cut
 * them into shards by the top bits of each item's first four bytes (a txid's, an address hash's),
 * yielding each shard's objects as soon as the next shard starts, so at most one shard is held.
 */

/** An object to put: its key and bytes. */
export interface LevelObject {
  key: string;
  bytes: Uint8Array;
}

/**
 * Feeds sorted `items` to `add`, and calls `close(shard)` — which yields that shard's objects — for
 * every shard of `2^bits` in order, once its items are all added (empty shards too: a head names
 * every shard of its levels).
 */
export function* byShard(
  bits: number,
  items: Iterable<Uint8Array>,
  add: (item: Uint8Array) => void,
  close: (shard: number) => Iterable<LevelObject>,
): Generator<LevelObject> {
  const shards = 2 ** bits;
  let current = 0;
  for (const item of items) {
    const shard = shardOf(itemKey32(item), bits);
    if (shard < current)
      throw new LightedgeError("bad-request", "history-level", `level items out of order (shard ${shard})`);
    while (current < shard) yield* close(current++);
    add(item);
  }
  while (current < shards) yield* close(current++);
}

/** Packed fixed-size items of one shard, appended in place: one growing buffer, reused per shard. */
export class PackedItems {
  bytes: Uint8Array;
  view: DataView;
  /** Bytes used. */
  length = 0;

  constructor(initialBytes: number) {
    this.bytes = new Uint8Array(initialBytes);
    this.view = new DataView(this.bytes.buffer);
  }

  /** Copies `item` to the end; returns where it starts. */
  append(item: Uint8Array): number {
    const at = this.length;
    if (at + item.length > this.bytes.length) {
      const grown = new Uint8Array(Math.max(2 * this.bytes.length, at + item.length));
      grown.set(this.bytes.subarray(0, at));
      this.bytes = grown;
      this.view = new DataView(grown.buffer);
    }
    this.bytes.set(item, at);
    this.length = at + item.length;
    return at;
  }

  /** The bytes used so far (a view: copy before the next `append`). */
  used(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }
}
