import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import {
  createTreeStateReader,
  decodeTreeStateRange,
  encodeSubtreeRoots,
  encodeTreeStateRange,
  readSubtreeRoots,
  subtreeChunkKey,
  type TreeStateBlock,
  treeStateAt,
  treeStateKey,
} from "../../proto/treestate/index.ts";
import { createR2Reader } from "../store/r2-reader.ts";
import { objectReadBytes } from "../store/read-bytes.ts";

const bucket = (env as unknown as { BLOCKS: R2Bucket }).BLOCKS;
const node = (seed: number) => Uint8Array.from({ length: 32 }, (_, i) => (seed * 37 + i * 11) & 0x3f);
const RANGE = 50;

/** Blocks 100..149 whose Sapling tree grows by one leaf per block (a real encoder output). */
function blocks(): TreeStateBlock[] {
  return Array.from({ length: RANGE }, (_, i) => ({
    height: 100 + i,
    wireHash: node(1000 + i),
    time: 1_700_000_000 + i,
    sapling: {
      left: node(i),
      right: i % 2 ? node(i + 1) : undefined,
      parents: [node(7), undefined, node(9)],
    },
    orchard: i >= 25 ? { parents: [] } : undefined,
  }));
}

describe("the edge tree-state reader over the R2 binding", () => {
  const bytes = encodeTreeStateRange({ network: "main", blocks: blocks() });

  it("answers every height of a stored range exactly as the whole-object decoder does", async () => {
    const prefix = `ts-${crypto.randomUUID()}/`;
    await bucket.put(`${prefix}${treeStateKey("mainnet", RANGE, 2)}`, bytes);
    const reader = createTreeStateReader({
      read: objectReadBytes(createR2Reader(bucket, prefix)),
      network: "mainnet",
    });
    const whole = decodeTreeStateRange(bytes);
    for (const h of [100, 101, 124, 125, 149]) {
      expect(await reader.at(RANGE, h)).toEqual(treeStateAt(whole, h));
    }
    expect(await reader.at(RANGE, 150)).toBeUndefined(); // range 3 is not stored: fall back
  });

  it("warms a range's table so its next answer is one read, and warms nothing twice", async () => {
    const prefix = `ts-${crypto.randomUUID()}/`;
    await bucket.put(`${prefix}${treeStateKey("mainnet", RANGE, 2)}`, bytes);
    const inner = objectReadBytes(createR2Reader(bucket, prefix));
    const reads: string[] = [];
    const reader = createTreeStateReader({
      read: (key, range) => {
        reads.push(range === undefined ? key : `${range.offset}+${range.length}`);
        return inner(key, range);
      },
      network: "mainnet",
    });
    await reader.warm(RANGE, 124);
    await reader.warm(RANGE, 149);
    expect(reads).toHaveLength(1); // the table, once
    expect(await reader.at(RANGE, 124)).toEqual(treeStateAt(decodeTreeStateRange(bytes), 124));
    expect(reads).toHaveLength(2); // … and the record
    await reader.warm(RANGE, 150); // range 3 is not stored: nothing to load, no error
  });

  it("reports a damaged record as corrupt rather than answering", async () => {
    const prefix = `ts-${crypto.randomUUID()}/`;
    const bad = bytes.slice();
    bad[bad.length - 5]! ^= 0xff;
    await bucket.put(`${prefix}${treeStateKey("mainnet", RANGE, 2)}`, bad);
    const reader = createTreeStateReader({
      read: objectReadBytes(createR2Reader(bucket, prefix)),
      network: "mainnet",
    });
    await expect(reader.at(RANGE, 149)).rejects.toMatchObject({ kind: "corrupt" });
  });

  it("serves stored subtree roots from the chunk the tip's tree size names", async () => {
    const prefix = `ts-${crypto.randomUUID()}/`;
    const roots = [0, 1, 2].map((i) => ({
      root: node(i),
      completingHeight: 500 + i,
      completingWireHash: node(50 + i),
    }));
    await bucket.put(
      `${prefix}${subtreeChunkKey("mainnet", "sapling", 0, 3)}`,
      encodeSubtreeRoots({ pool: "sapling", firstIndex: 0, roots }),
    );
    const read = objectReadBytes(createR2Reader(bucket, prefix));
    const treeSize = 3 * 65536 + 17;
    expect(
      await readSubtreeRoots(read, "mainnet", { pool: "sapling", startIndex: 1, maxEntries: 0, treeSize }),
    ).toEqual(roots.slice(1));
    expect(
      await readSubtreeRoots(read, "mainnet", {
        pool: "sapling",
        startIndex: 0,
        maxEntries: 5,
        treeSize: 4 * 65536,
      }),
    ).toBeUndefined();
  });
});
