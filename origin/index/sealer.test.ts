import { afterEach, describe, expect, it } from "vitest";
import { concatBytes } from "../../proto/bytes.ts";
import {
  bundleKey,
  DEFAULT_BUNDLE_MAX_BYTES,
  decodeHead,
  type HeadObject,
  headKey,
  PROJECTIONS,
  rangeKeys,
} from "../../proto/range/index.ts";
import { syntheticRange } from "../../proto/range/testing.ts";
import { createDevNode } from "../devnode/index.ts";
import { createNodeClient } from "../node/index.ts";
import { type BlobStore, createDirectoryStore } from "../store/index.ts";
import { createSealer, projectionBytes } from "./sealer.ts";
import { auditMetadata, auditStore } from "./store-audit.ts";
import { createTail, type Tail } from "./tail.ts";
import { tempDir } from "./testing.ts";

const RANGE = 10;
const RANGES = 6;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Ranges 0..RANGES−1 of synthetic blocks (chained hashes, ≈ 9 KB of projections a block) in a tail. */
function tailOfRanges(): Tail {
  const tail = createTail();
  for (let index = 0; index < RANGES; index++)
    for (const block of syntheticRange({ network: "regtest", rangeSize: RANGE, index }).blocks)
      tail.append(block);
  return tail;
}

/**
 * A directory store whose range data uploads take a while, counting how many ranges upload at
 * once (a range's `.full.bin` put runs from its upload's start to its end).
 */
function slowStore(root: string): { store: BlobStore; most: () => number } {
  const inner = createDirectoryStore(root);
  let now = 0;
  let most = 0;
  return {
    most: () => most,
    store: {
      ...inner,
      async put(key, body, opts) {
        if (!key.endsWith(".full.bin")) return inner.put(key, body, opts);
        most = Math.max(most, ++now);
        try {
          await new Promise((resolve) => setTimeout(resolve, 30));
          await inner.put(key, body, opts);
        } finally {
          now--;
        }
      },
    },
  };
}

describe("the sealer's uploads in flight", () => {
  async function sealAll(
    uploadBudgetBytes: number | undefined,
  ): Promise<{ most: number; rangeBytes: number }> {
    const dev = await createDevNode({ synthetic: { blocks: 5, seed: "sealer" }, network: "regtest" });
    await dev.ready;
    cleanups.push(() => dev.close());
    const node = createNodeClient({ url: dev.url, retries: 0, timeoutMs: 5000 });
    cleanups.push(() => node.close());
    const dir = tempDir("lightedge-sealer-");
    cleanups.push(() => dir.remove());
    const { store, most } = slowStore(dir.path);
    const tail = tailOfRanges();
    const sealed: number[] = [];
    const sealer = createSealer({
      store,
      info: node,
      network: "regtest",
      rangeSize: RANGE,
      maxInFlight: 4,
      uploadBudgetBytes,
      head: null,
      firstHeight: 0,
      onUploaded: () => {},
      onSealed: (head) => sealed.push(head.rangeCount),
      onStoreError: (err) => {
        throw err;
      },
    });
    await sealer.sealReady(tail, RANGES * RANGE - 1);
    await sealer.flush();
    expect(sealer.head()?.rangeCount).toBe(RANGES);
    expect(sealed[sealed.length - 1]).toBe(RANGES);
    return { most: most(), rangeBytes: projectionBytes(tail.slice(0, RANGE - 1)) };
  }

  it("holds to the count when ranges are small, and to one range at a time when each fills the byte budget", async () => {
    const small = await sealAll(undefined);
    expect(small.rangeBytes).toBeLessThan(1_000_000);
    expect(small.most).toBe(4);
    const big = await sealAll(Math.floor(small.rangeBytes * 1.5));
    expect(big.most).toBe(1);
    const two = await sealAll(Math.floor(small.rangeBytes * 2.5));
    expect(two.most).toBe(2);
  }, 60_000);

  it("lets a range larger than the whole budget go alone rather than never", async () => {
    const { most } = await sealAll(1);
    expect(most).toBe(1);
  }, 60_000);
});

describe("the sealer's range bundles", () => {
  async function sealerOver(
    store: BlobStore,
    bundleRanges: number,
    head: HeadObject | null = null,
    errors: unknown[] | undefined = undefined,
  ) {
    const dev = await createDevNode({ synthetic: { blocks: 5, seed: "sealer" }, network: "regtest" });
    await dev.ready;
    cleanups.push(() => dev.close());
    const node = createNodeClient({ url: dev.url, retries: 0, timeoutMs: 5000 });
    cleanups.push(() => node.close());
    return createSealer({
      store,
      info: node,
      network: "regtest",
      rangeSize: RANGE,
      maxInFlight: 4,
      head,
      firstHeight: 0,
      bundleRanges,
      onUploaded: () => {},
      onSealed: () => {},
      onStoreError: (err) => {
        if (errors === undefined) throw err;
        errors.push(err);
      },
    });
  }

  function storeIn(): BlobStore {
    const dir = tempDir("lightedge-sealer-bundles-");
    cleanups.push(() => dir.remove());
    return createDirectoryStore(dir.path);
  }

  it("writes each bundle its ranges complete before the head that names it", async () => {
    const store = storeIn();
    const sealer = await sealerOver(store, 4);
    await sealer.sealReady(tailOfRanges(), RANGES * RANGE - 1);
    await sealer.flush();
    // 6 ranges: bundle 0 (ranges 0..3) is whole, bundle 1 (4..7) is not yet.
    expect(sealer.head()?.bundles).toEqual({ ranges: 4, maxBytes: DEFAULT_BUNDLE_MAX_BYTES, to: 4 });
    const stored = decodeHead((await store.get(headKey("regtest")))!);
    expect(stored.bundles?.to).toBe(4);
    for (const p of PROJECTIONS) {
      const parts = [];
      for (let i = 0; i < 4; i++) parts.push((await store.get(rangeKeys("regtest", RANGE, i).data[p]))!);
      expect(await store.get(bundleKey("regtest", RANGE, 4, 0, p))).toEqual(concatBytes(parts));
    }
    expect(await store.get(bundleKey("regtest", RANGE, 4, 1, "shielded"))).toBeNull();
    expect(sealer.bundlesBehind()).toBe(false);
    // The audits check what the head names: sizes (metadata audit), and bytes (full audit).
    expect((await auditStore(store, "regtest", RANGE)).bundles).toBe(3);
    const key = bundleKey("regtest", RANGE, 4, 0, "full");
    const damaged = (await store.get(key))!.slice();
    damaged[damaged.length - 1]! ^= 1;
    await store.put(key, damaged);
    expect((await auditMetadata(store, "regtest", RANGE)).bundles).toBe(3);
    await expect(auditStore(store, "regtest", RANGE)).rejects.toMatchObject({ kind: "corrupt" });
    await store.put(key, damaged.subarray(1));
    await expect(auditMetadata(store, "regtest", RANGE)).rejects.toMatchObject({ kind: "corrupt" });
  }, 60_000);

  it("names none when they are off, and a later sealer writes them for the ranges already sealed", async () => {
    const store = storeIn();
    const off = await sealerOver(store, 0);
    await off.sealReady(tailOfRanges(), RANGES * RANGE - 1);
    await off.flush();
    expect(off.head()?.bundles).toBeUndefined();
    const later = await sealerOver(store, 3, off.head());
    expect(later.bundlesBehind()).toBe(true);
    // Written on the next refresh, however fresh the head (ranges 0..5: bundles 0 and 1).
    await later.refreshHead(3_600_000);
    expect(later.bundlesBehind()).toBe(false);
    expect(decodeHead((await store.get(headKey("regtest")))!).bundles?.to).toBe(6);
    expect(await store.get(bundleKey("regtest", RANGE, 3, 1, "nullifiers"))).not.toBeNull();
  }, 60_000);

  it("stop at a damaged range object, named as a store error, while sealing goes on", async () => {
    const inner = storeIn();
    const damaged = rangeKeys("regtest", RANGE, 2).data.full;
    // Range 2's full object reads back with a byte flipped (what bundling reads, after it is written).
    const store: BlobStore = {
      ...inner,
      async get(key, range) {
        const bytes = await inner.get(key, range);
        if (key !== damaged || bytes === null) return bytes;
        const copy = bytes.slice();
        copy[0]! ^= 1;
        return copy;
      },
    };
    const errors: unknown[] = [];
    const sealer = await sealerOver(store, 2, null, errors);
    await sealer.sealReady(tailOfRanges(), RANGES * RANGE - 1);
    await sealer.flush();
    expect(sealer.head()?.rangeCount).toBe(RANGES);
    expect(sealer.head()?.bundles?.to).toBe(2);
    expect(errors).toEqual([expect.objectContaining({ kind: "corrupt" })]);
    expect(sealer.bundlesBehind()).toBe(false);
    expect(await inner.get(bundleKey("regtest", RANGE, 2, 2, "shielded"))).toBeNull();
  }, 60_000);
});
