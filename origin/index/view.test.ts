import { describe, expect, it } from "vitest";
import { displayHex } from "../../proto/bytes.ts";
import { encodeFrame } from "../../proto/frame.ts";
import {
  blockSpan,
  decodeRangeMeta,
  encodeSealedRange,
  type HeadObject,
  PROJECTIONS,
  rangeKeys,
  type SealedBlockInput,
} from "../../proto/range/index.ts";
import { syntheticRange } from "../../proto/range/testing.ts";
import { type BlobStore, createDirectoryStore } from "../store/index.ts";
import { createSealedReader, type SealedReader } from "./sealed-reader.ts";
import { createTail } from "./tail.ts";
import { collect, tempDir } from "./testing.ts";
import { createChainView } from "./view.ts";

const NETWORK = "regtest";
const SIZE = 10;

/** Ranges 0..count-1 sealed in a directory store; `edit` may change a range's blocks first. */
async function sealedStore(count: number, edit?: (index: number, blocks: SealedBlockInput[]) => void) {
  const dir = tempDir("view");
  const store = createDirectoryStore(dir.path);
  const stored: Uint8Array[] = [];
  for (let index = 0; index < count; index++) {
    const input = syntheticRange({ network: NETWORK, rangeSize: SIZE, index });
    edit?.(index, input.blocks);
    const encoded = encodeSealedRange(input);
    const keys = rangeKeys(NETWORK, SIZE, index);
    for (const p of PROJECTIONS) await store.put(keys.data[p], encoded.data[p]);
    await store.put(keys.meta, encoded.meta);
    for (const b of input.blocks) stored[b.height] = encodeFrame(b.messages.full);
  }
  return { dir, store, stored };
}

function viewOver(store: BlobStore, sealedRanges: number, tailBlocks: SealedBlockInput[] = []) {
  const tail = createTail();
  for (const b of tailBlocks) tail.append(b);
  const top = sealedRanges * SIZE - 1;
  const head = {
    rangeCount: sealedRanges,
    tip: { height: top, displayHash: displayHex(new Uint8Array(32)), time: 0 },
  } as HeadObject;
  const sealed = createSealedReader(store, NETWORK, SIZE);
  return createChainView({ tail, sealed, rangeSize: SIZE, head: () => head, floor: () => 0 });
}

/**
 * A view over ranges 0..count-1 whose sealed reads (with their heights) and store reads of metadata
 * are counted; `spanReadBytes` as the view's source gives it.
 */
function countingView(store: BlobStore, sealedRanges: number, spanReadBytes?: number) {
  const reads = { spans: 0, whole: 0, metaObjects: 0, heights: [] as [number, number][] };
  const counted: BlobStore = {
    ...store,
    get(key, span) {
      if (key.endsWith(".meta.bin")) reads.metaObjects++;
      return store.get(key, span);
    },
  };
  const inner = createSealedReader(counted, NETWORK, SIZE);
  const sealed: SealedReader = {
    ...inner,
    read(projection, lo, hi) {
      reads.spans++;
      reads.heights.push([lo, hi]);
      return inner.read(projection, lo, hi);
    },
    async readVerifiedWhole(projection, index) {
      const whole = await inner.readVerifiedWhole(projection, index);
      if (whole !== undefined) reads.whole++;
      return whole;
    },
  };
  const head = {
    rangeCount: sealedRanges,
    tip: { height: sealedRanges * SIZE - 1, displayHash: displayHex(new Uint8Array(32)), time: 0 },
  } as HeadObject;
  const view = createChainView({
    tail: createTail(),
    sealed,
    rangeSize: SIZE,
    head: () => head,
    floor: () => 0,
    spanReadBytes,
  });
  return { view, reads };
}

const nextBlocks = (count: number) =>
  syntheticRange({ network: NETWORK, rangeSize: SIZE, index: 3 }).blocks.slice(0, count);

describe("the chain view over sealed ranges and the tail", () => {
  it("streams the stored frames across ranges and the seam, ascending and descending, as views of one read", async () => {
    const { dir, store, stored } = await sealedStore(3);
    try {
      const tail = nextBlocks(4);
      const view = viewOver(store, 3, tail);
      const expected = [...stored.slice(5, 30), ...tail.map((b) => encodeFrame(b.messages.full))];
      const up = await collect(view.blockFrames("full", 5, 33));
      expect(up.map((f) => Buffer.from(f).toString("hex"))).toEqual(
        expected.map((f) => Buffer.from(f).toString("hex")),
      );
      // Frames of one range share the buffer of its single ranged read.
      expect(up[0]!.buffer).toBe(up[4]!.buffer);
      const down = await collect(view.blocks("full", 33, 5));
      expect(down.map((b) => b.height)).toEqual(Array.from({ length: 29 }, (_, k) => 33 - k));
      expect(down.map((b) => Buffer.from(b.frame).toString("hex"))).toEqual(
        expected.reverse().map((f) => Buffer.from(f).toString("hex")),
      );
      expect(Buffer.from(down.at(-2)!.wirePrevHash).equals(Buffer.from(down.at(-1)!.wireHash))).toBe(true);
    } finally {
      dir.remove();
    }
  });

  it("yields an ascending sealed run as one chunk per range read with `runs`, the tail and descending frame by frame", async () => {
    const { dir, store, stored } = await sealedStore(3);
    try {
      const tail = nextBlocks(4);
      const view = viewOver(store, 3, tail);
      const chunks = await collect(view.blockFrames("full", 5, 32, { runs: true }));
      // 5..9, 10..19, 20..29 (one each), then the tail's 30, 31, 32.
      expect(chunks).toHaveLength(6);
      const want = [...stored.slice(5, 30), ...tail.slice(0, 3).map((b) => encodeFrame(b.messages.full))];
      expect(Buffer.concat(chunks).equals(Buffer.concat(want))).toBe(true);
      expect(await collect(view.blockFrames("full", 29, 5, { runs: true }))).toHaveLength(25);
      // Chain checks still hold between runs.
      const { dir: broken, store: brokenStore } = await sealedStore(3, (index, blocks) => {
        if (index === 2) blocks[0]!.wirePrevHash = new Uint8Array(32).fill(7);
      });
      try {
        await expect(
          collect(viewOver(brokenStore, 3).blockFrames("full", 12, 25, { runs: true })),
        ).rejects.toMatchObject({
          kind: "chain-break",
        });
      } finally {
        broken.remove();
      }
    } finally {
      dir.remove();
    }
  });

  it("reads a range block by block in runs of at most spanReadBytes, the sending end first, the same frames", async () => {
    const { dir, store, stored } = await sealedStore(2);
    try {
      const hex = (f: Uint8Array) => Buffer.from(f).toString("hex");
      const bytesOf = ([lo, hi]: [number, number]) =>
        stored.slice(lo, hi + 1).reduce((n, f) => n + f.length, 0);
      const limit = 3 * Math.max(...stored.map((f) => f.length));
      const runs = countingView(store, 2, limit);
      const down = await collect(runs.view.blocks("full", 19, 0));
      expect(down.map((b) => hex(b.frame))).toEqual([...stored].reverse().map(hex));
      expect(runs.reads.spans).toBeGreaterThan(2);
      for (const run of runs.reads.heights) expect(bytesOf(run)).toBeLessThanOrEqual(limit);
      // Each range's first read holds its highest heights; together the reads cover every height once.
      expect(runs.reads.heights[0]![1]).toBe(19);
      expect(Math.min(...runs.reads.heights.map(([lo]) => lo))).toBe(0);
      expect(runs.reads.heights.reduce((n, [lo, hi]) => n + hi - lo + 1, 0)).toBe(20);
      // Ascending block by block reads in runs too; ascending frame runs are one read per range.
      const up = countingView(store, 2, limit);
      expect((await collect(up.view.blocks("full", 0, 19))).map((b) => hex(b.frame))).toEqual(
        stored.map(hex),
      );
      expect(up.reads.spans).toBe(runs.reads.spans);
      const piped = countingView(store, 2, limit);
      await collect(piped.view.blockFrames("full", 0, 19, { runs: true }));
      expect(piped.reads.spans).toBe(2);
      // By default (4 MiB) a small range is one read.
      const plain = countingView(store, 2);
      await collect(plain.view.blocks("full", 19, 0));
      expect(plain.reads.spans).toBe(2);
    } finally {
      dir.remove();
    }
  });

  it("reads ascending sealed runs into the caller's buffers (BlockFramesOptions.into), nothing else", async () => {
    const { dir, store, stored } = await sealedStore(3);
    try {
      const view = viewOver(store, 3, nextBlocks(2));
      const taken: number[] = [];
      const into = (length: number) => {
        taken.push(length);
        return new Uint8Array(length);
      };
      for (let pass = 0; pass < 2; pass++) {
        // The second pass reads whole ranges by their ends (checked whole by the first).
        taken.length = 0;
        const chunks = await collect(view.blockFrames("full", 5, 31, { runs: true, into }));
        expect(taken).toHaveLength(3);
        const want = [...stored.slice(5, 30), ...nextBlocks(2).map((b) => encodeFrame(b.messages.full))];
        expect(Buffer.concat(chunks).equals(Buffer.concat(want))).toBe(true);
        // Each run is one chunk, the whole of its buffer.
        expect(chunks.slice(0, 3).map((c) => c.length)).toEqual(taken);
      }
      taken.length = 0;
      await collect(view.blockFrames("full", 29, 5, { runs: true, into }));
      await collect(view.blockFrames("full", 5, 29, { into }));
      expect(taken).toEqual([]);
    } finally {
      dir.remove();
    }
  });

  it("reads a whole range it has checked before by its ends alone (no metadata read), chain checks kept", async () => {
    const { dir, store, stored } = await sealedStore(3);
    try {
      const { view, reads } = countingView(store, 3);
      const first = await collect(view.blockFrames("full", 0, 29, { runs: true }));
      expect(Buffer.concat(first).equals(Buffer.concat(stored.slice(0, 30)))).toBe(true);
      expect(reads).toMatchObject({ spans: 3, whole: 0, metaObjects: 3 });
      // Each range was checked whole (verifySection) by that read: now its ends are enough.
      const again = await collect(view.blockFrames("full", 0, 29, { runs: true }));
      expect(again).toHaveLength(3);
      expect(Buffer.concat(again).equals(Buffer.concat(stored.slice(0, 30)))).toBe(true);
      expect(reads).toMatchObject({ spans: 3, whole: 3, metaObjects: 3 });
      // Partial ranges still need the block table; another projection is checked whole first.
      const partial = await collect(view.blockFrames("full", 5, 24, { runs: true }));
      expect(Buffer.concat(partial).equals(Buffer.concat(stored.slice(5, 25)))).toBe(true);
      await collect(view.blockFrames("shielded", 0, 29, { runs: true }));
      expect(reads).toMatchObject({ spans: 8, whole: 4, metaObjects: 3 });
      // Descending never: its checks need each block's hashes.
      await collect(view.blockFrames("full", 29, 0, { runs: true }));
      expect(reads.whole).toBe(4);
    } finally {
      dir.remove();
    }
    // A break between two checked ranges is found from their ends.
    const { dir: broken, store: brokenStore } = await sealedStore(3, (index, blocks) => {
      if (index === 2) blocks[0]!.wirePrevHash = new Uint8Array(32).fill(7);
    });
    try {
      const { view, reads } = countingView(brokenStore, 3);
      for (const [from, to] of [
        [0, 19],
        [20, 29],
      ] as const)
        await collect(view.blockFrames("full", from, to, { runs: true }));
      await expect(collect(view.blockFrames("full", 0, 29, { runs: true }))).rejects.toMatchObject({
        kind: "chain-break",
        message: expect.stringContaining("block 20 does not follow block 19"),
      });
      expect(reads.whole).toBe(3);
    } finally {
      broken.remove();
    }
  });

  it("throws chain-break where a range does not continue the one before it, in either direction", async () => {
    const { dir, store } = await sealedStore(3, (index, blocks) => {
      if (index === 2) blocks[0]!.wirePrevHash = new Uint8Array(32).fill(7);
    });
    try {
      const view = viewOver(store, 3);
      await expect(collect(view.blockFrames("full", 12, 25))).rejects.toMatchObject({
        kind: "chain-break",
        message: expect.stringContaining("block 20 does not follow block 19"),
      });
      await expect(collect(view.blocks("shielded", 25, 12))).rejects.toMatchObject({ kind: "chain-break" });
      // Inside one range, or up to the break, it streams.
      expect(await collect(view.blockFrames("full", 20, 29))).toHaveLength(10);
      const first = view.blockFrames("full", 15, 25)[Symbol.asyncIterator]();
      expect((await first.next()).done).toBe(false);
    } finally {
      dir.remove();
    }
  });

  it("throws chain-break at the seam when the tail does not continue the sealed tip", async () => {
    const { dir, store } = await sealedStore(3);
    try {
      const tail = nextBlocks(2);
      tail[0]!.wirePrevHash = new Uint8Array(32).fill(9);
      const view = viewOver(store, 3, tail);
      await expect(collect(view.blockFrames("nullifiers", 28, 31))).rejects.toMatchObject({
        kind: "chain-break",
      });
      await expect(collect(view.blockFrames("nullifiers", 31, 28))).rejects.toMatchObject({
        kind: "chain-break",
      });
    } finally {
      dir.remove();
    }
  });

  it("refuses heights above the tip, below the floor and invalid ones before the first frame", async () => {
    const { dir, store } = await sealedStore(1);
    try {
      const view = viewOver(store, 1);
      await expect(collect(view.blockFrames("full", 5, 10))).rejects.toMatchObject({ kind: "above-tip" });
      await expect(collect(view.blocks("full", -1, 3))).rejects.toMatchObject({ kind: "bad-request" });
      // The head names a range the store does not hold: damage (the head is written after its
      // ranges), the same answer as at the edge.
      const missing = viewOver(store, 2);
      await expect(collect(missing.blockFrames("full", 12, 13))).rejects.toMatchObject({ kind: "corrupt" });
    } finally {
      dir.remove();
    }
  });

  it("checks a data object's SHA-256 when a read covers it whole and trusts partial reads within the metadata's bounds", async () => {
    const { dir, store } = await sealedStore(2);
    try {
      const key = rangeKeys(NETWORK, SIZE, 1).data.full;
      const bytes = (await store.get(key))!;
      const meta = decodeRangeMeta((await store.get(rangeKeys(NETWORK, SIZE, 1).meta))!);
      const span = blockSpan(meta, "full", 15, 15);
      bytes[span.offset + 7]! ^= 0xff; // same length, different bytes inside block 15
      await store.put(key, bytes);
      const view = viewOver(store, 2);
      await expect(collect(view.blockFrames("full", 10, 19))).rejects.toMatchObject({
        kind: "corrupt",
        message: expect.stringContaining("SHA-256"),
      });
      expect(await collect(view.blockFrames("full", 11, 19))).toHaveLength(9);
      await store.put(key, bytes.subarray(0, span.offset + 3)); // truncated: the span cannot come back whole
      await expect(collect(view.blockFrames("full", 12, 16))).rejects.toMatchObject({ kind: "corrupt" });
    } finally {
      dir.remove();
    }
  });

  it("stops quietly when the signal is aborted mid-stream", async () => {
    const { dir, store } = await sealedStore(3);
    try {
      const controller = new AbortController();
      const seen: number[] = [];
      for await (const b of viewOver(store, 3).blocks("full", 0, 29, { signal: controller.signal })) {
        seen.push(b.height);
        if (b.height === 13) controller.abort();
      }
      expect(seen).toEqual(Array.from({ length: 14 }, (_, k) => k));
    } finally {
      dir.remove();
    }
  });
});
