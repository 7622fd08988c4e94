import { displayHex, equalBytes } from "../../proto/bytes.ts";
import { LightedgeError } from "../../proto/errors.ts";
import { rawBlocks, rawBlocksKey } from "../../proto/history/index.ts";
import {
  blockHashEntries,
  blockInfo,
  decodeHead,
  encodeHead,
  encodeSealedRange,
  endsOfEncoded,
  HashIndexBuilder,
  type HeadObject,
  headKey,
  PROJECTIONS,
  rangeKeys,
  type SealedBlockInput,
} from "../../proto/range/index.ts";
import { buildIndexedBlock } from "../index/build-block.ts";
import { BundleWriter } from "../index/bundle-writer.ts";
import { codecOptions } from "../index/codec-options.ts";
import { forEachLimited } from "../index/for-each-limited.ts";
import { createSealedReader } from "../index/sealed-reader.ts";
import type { BlobStore, Body } from "../store/index.ts";

export interface ReprojectOptions {
  /** The store whose raw-block objects are read (its head must name node-free history). */
  from: BlobStore;
  network: string;
  /**
   * Where the rebuilt store goes: every range's projections and metadata rebuilt from its raw
   * blocks, the hash index and range ends rebuilt from them, every other object copied, the head
   * last. Without it, each rebuilt range is only compared with the stored one.
   */
  to?: BlobStore;
  /** Ranges in flight. */
  concurrency?: number;
  onRange?(index: number, identical: boolean): void;
}

export interface ReprojectResult {
  ranges: number;
  /** Ranges whose rebuilt projections and metadata equal the stored ones byte for byte. */
  identical: number;
  /** Ranges that differ (the projection code changed, or the stored objects are damaged). */
  differing: number[];
  /** Objects written to `to` (0 without it). */
  written: number;
}

/**
 * `lightedge reproject`: the compact projections of a store rebuilt from its raw-block objects with
 * no node (proto/range-format.md §Node-free history, Raw-block object) — each raw block parsed and
 * projected by the same code the indexer runs (origin/index/build-block.ts), with the tree sizes the
 * range's metadata records. Checking a store (every range byte-identical) proves its projections
 * are what the raw chain says; writing a new store rolls out a new projection version without
 * re-reading the chain from a node.
 */
export async function reproject(o: ReprojectOptions): Promise<ReprojectResult> {
  const bytes = await o.from.get(headKey(o.network));
  if (bytes === null)
    throw new LightedgeError("not-found", "reproject", `no head for ${o.network} in the store`);
  const head = decodeHead(bytes);
  if (head.history === undefined)
    throw new LightedgeError(
      "bad-request",
      "reproject",
      "the store's head names no raw blocks (node-free history): start `lightedge origin` on it with --history on first",
    );
  const sealed = createSealedReader(o.from, o.network, head.rangeSize);
  const firstIndex = head.firstHeight / head.rangeSize;
  const indexes = Array.from({ length: head.rangeCount }, (_, k) => firstIndex + k);
  const rebuilt = new Map<
    number,
    { entries: ReturnType<typeof blockHashEntries>; ends: ReturnType<typeof endsOfEncoded> }
  >();
  const result: ReprojectResult = { ranges: indexes.length, identical: 0, differing: [], written: 0 };
  const put = async (key: string, value: Body) => {
    await o.to!.put(key, value, { contentType: "application/octet-stream", immutable: true });
    result.written++;
  };
  await forEachLimited(indexes, o.concurrency ?? 4, async (index) => {
    const meta = await sealed.meta(index);
    const rawKey = rawBlocksKey(o.network, head.rangeSize, index);
    const raw = await o.from.get(rawKey);
    if (raw === null) throw new LightedgeError("corrupt", "reproject", `${rawKey} is missing`);
    const blocks: SealedBlockInput[] = [...rawBlocks(raw)].map((block, k) => {
      const info = blockInfo(meta, meta.firstHeight + k);
      // The same parse and projections as indexing; the hash and height are checked against the metadata.
      return buildIndexedBlock({
        raw: block,
        height: info.height,
        displayHash: displayHex(info.wireHash),
        prevDisplayHash: displayHex(info.wirePrevHash),
        treeSizes: info.treeSizes,
        time: info.time,
        txids: [],
      });
    });
    if (blocks.length !== head.rangeSize)
      throw new LightedgeError(
        "corrupt",
        "reproject",
        `${rawKey} holds ${blocks.length} blocks, not ${head.rangeSize}`,
      );
    const input = { network: o.network, rangeSize: head.rangeSize, index, blocks };
    const encoded = encodeSealedRange(input, codecOptions);
    const keys = rangeKeys(o.network, head.rangeSize, index);
    const stored = await Promise.all([
      o.from.get(keys.meta),
      ...PROJECTIONS.map((p) => o.from.get(keys.data[p])),
    ]);
    const same =
      stored[0] !== null &&
      equalBytes(stored[0], encoded.meta) &&
      PROJECTIONS.every((p, k) => stored[k + 1] !== null && equalBytes(stored[k + 1]!, encoded.data[p]));
    if (same) result.identical++;
    else result.differing.push(index);
    if (o.to !== undefined) {
      for (const p of PROJECTIONS) await put(keys.data[p], encoded.data[p]);
      await put(keys.meta, encoded.meta);
      rebuilt.set(index, { entries: blockHashEntries(blocks), ends: endsOfEncoded(input, encoded) });
    }
    o.onRange?.(index, same);
  });
  result.differing.sort((a, b) => a - b);
  if (o.to !== undefined) await writeRest(o, head, rebuilt, put);
  return result;
}

/**
 * The rest of the new store: every object of the network that is not a rebuilt range object or
 * block-hash index object, copied; the hash index and range ends of the rebuilt ranges; the head
 * last, naming them.
 */
async function writeRest(
  o: ReprojectOptions,
  head: HeadObject,
  rebuilt: Map<
    number,
    { entries: ReturnType<typeof blockHashEntries>; ends: ReturnType<typeof endsOfEncoded> }
  >,
  put: (key: string, body: Body) => Promise<void>,
): Promise<void> {
  const folder = `v1/${o.network}/`;
  // Range bundles are rebuilt too: they hold the projections.
  const rebuiltKeys = /\/(\d{8,})\.(meta|shielded|full|nullifiers)\.bin$|\/hash\/|\/b\d+\/|\/head\.json$/;
  const copies = (await o.from.list(folder)).filter((key) => !rebuiltKeys.test(key));
  await forEachLimited(copies, o.concurrency ?? 4, async (key) => {
    const bytes = await o.from.get(key);
    if (bytes !== null) await put(key, bytes);
  });
  const firstIndex = head.firstHeight / head.rangeSize;
  const hashIndex = new HashIndexBuilder({
    network: o.network,
    rangeSize: head.rangeSize,
    firstIndex,
    epochRanges: head.hashIndex?.epochRanges,
  });
  for (let k = 0; k < head.rangeCount; k++) {
    const r = rebuilt.get(firstIndex + k)!;
    hashIndex.add(firstIndex + k, r.entries, r.ends);
  }
  for (const obj of hashIndex.objects(codecOptions)) await put(obj.key, obj.bytes);
  // The bundles the head named, from the rebuilt ranges (read back as the sealer does).
  const field = head.bundles;
  const bundles = field && {
    field,
    writer: new BundleWriter({
      store: o.to!,
      network: o.network,
      rangeSize: head.rangeSize,
      firstIndex,
      ranges: field.ranges,
      maxBytes: field.maxBytes,
      put,
    }),
  };
  await bundles?.writer.catchUp(bundles.field.to, Number.POSITIVE_INFINITY, o.concurrency ?? 4);
  const next: HeadObject = {
    ...head,
    hashIndex: hashIndex.headField,
    updatedAt: new Date().toISOString(),
    ...(bundles ? { bundles: bundles.writer.field } : {}),
  };
  await o.to!.put(headKey(o.network), encodeHead(next), { contentType: "application/json" });
}
