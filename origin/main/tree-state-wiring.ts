import type { Logger } from "pino";
import { LightedgeError } from "../../proto/errors.ts";
import { createTreeStateReader, type TreeStateView } from "../../proto/treestate/index.ts";
import type { Network } from "../config.ts";
import type { ChainView, IndexHooks } from "../index/index.ts";
import { retrying } from "../index/retry.ts";
import type { NodeInfo, NodeInfoSource, TreeStateSource } from "../node/ports.ts";
import type { BlobStore } from "../store/index.ts";
import {
  createSubtreeLedger,
  createTreeStateService,
  createTreeStateThread,
  type SeededRoot,
  type StoredObjectWrite,
  type SubtreeLedger,
  type TreeStateService,
  type TreeStateStart,
  type TreeStateThread,
} from "../treestate/index.ts";
import { nodeFinalState } from "../treestate/node-final-state.ts";
import { seedLedger } from "../treestate/seed-ledger.ts";
import { resolveTreeStart, type TreeStartSource, treeActivations } from "../treestate/tree-start.ts";
import { producerBlocksFrom } from "../treestate/view-blocks.ts";

export const CHAIN_NAMES = { mainnet: "main", testnet: "test", regtest: "regtest" } as const;

export interface TreeStateWiringOptions {
  store: BlobStore;
  network: Network;
  rangeSize: number;
  node: TreeStateSource & NodeInfoSource;
  log: Logger;
  /** True for the dev node's synthetic chain (its z_gettreestate is a placeholder); default: detect. */
  synthetic?: boolean;
  /** Test hook: start the producer from this frontier instead of resolving one. */
  start?: TreeStateStart;
  /** Tree-state events for the status page. */
  onEvent?: (text: string) => void;
}

export interface TreeStateWiring {
  /** Pass to the indexer: posts each block's leaves and each sealed range to the tree-state worker. */
  hooks: IndexHooks;
  /** Pass to the origin server: stored and tracked tree states before the node. */
  service: TreeStateService;
  /** After `indexer.start()`: resolves the start frontier, replays the restored tail, goes live. */
  begin(view: ChainView): Promise<void>;
  /** First height with a computed tree state (undefined: node only). */
  coveredFrom(): number | undefined;
  /**
   * Resolves once tree states through `height` are computed and the objects of every range sealed
   * by then are stored (tests, benchmarks); at once when no producer runs.
   */
  settled(height: number): Promise<void>;
  /** Highest height hashed by the worker (−1: none). */
  computedThrough(): number;
  close(): Promise<void>;
}

/** More blocks than this between the start and the node's tip are left to `lightedge backfill-trees`. */
export const FOLLOW_LIMIT = 10_000;
/** Ranges searched back from the sealed tip for a stored object to restart from (one stat each). */
const RESUME_SEARCH = 64;
/** How long `close()` lets the worker finish objects of ranges already sealed. */
const CLOSE_DRAIN_MS = 2_000;

/**
 * Where to start following: `height`, unless a real node's tip is far ahead (an initial sync of
 * mainnet from genesis would hash all of history; the backfill does that on several worker
 * threads). Then a range boundary a range below the node's tip, from its z_gettreestate.
 */
function catchUpHeight(height: number, info: NodeInfo, rangeSize: number, synthetic: boolean): number {
  if (synthetic || info.blocks - height <= FOLLOW_LIMIT) return height;
  return (Math.floor(info.blocks / rangeSize) - 1) * rangeSize - 1;
}

/** A synthetic dev chain names itself in getinfo's subversion (origin/devnode/info-rpc.ts). */
export const isSyntheticNode = (info: NodeInfo) => /-synthetic\//.test(info.subversion);

/**
 * The newest height at or below `height` (a range's last, or `height` itself) whose stored object
 * exists: objects are written after sealing, so a stop can leave the newest sealed ranges without
 * theirs; those are hashed again from the stored blocks.
 */
async function newestStored(
  height: number,
  rangeSize: number,
  stored: (h: number) => Promise<TreeStateView | undefined>,
): Promise<number> {
  let h = height;
  for (let i = 0; i < RESUME_SEARCH && h >= 0; i++) {
    if ((await stored(h)) !== undefined) return h;
    h = Math.floor(h / rangeSize) * rangeSize - 1;
  }
  return height;
}

/**
 * Tree states while indexing (issue 10; origin/treestate/README.md), on a worker thread: the hooks
 * only post messages (a block's leaves, rollbacks, sealed ranges), so indexing never waits for
 * hashing and sealing never waits for tree objects, which are stored when the worker finishes
 * them. Hook calls before the start frontier is known are queued and replayed in order; until then
 * (node info and one stored read) sealing waits, so no sealed range is missed.
 */
export function createTreeStateWiring(o: TreeStateWiringOptions): TreeStateWiring {
  const controller = new AbortController();
  let live = false;
  let synthetic = o.synthetic ?? false;
  let queue: (() => void)[] = [];
  let release: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    release = resolve;
  });
  const ironwood = (height: number) => nodeFinalState(o.node, height, "ironwood");
  /** Started once the node's activation heights are known; undefined = node fallback only. */
  let thread: TreeStateThread | undefined;
  let from: number | undefined;
  const later = (call: () => void) => (live ? call() : queue.push(call));

  const hooks: IndexHooks = {
    onAppend: (blocks) => later(() => thread?.append(blocks)),
    onRollback: (height) => later(() => thread?.rollback(height)),
    rangeObjects: async (index, blocks) => {
      if (!live) await ready;
      thread?.seal(index, blocks);
      return [];
    },
  };

  const write = (objects: StoredObjectWrite[]) =>
    retrying(
      async () => {
        for (const w of objects)
          await o.store.put(w.key, w.bytes, { contentType: "application/octet-stream", immutable: true });
      },
      (err) => o.log.warn({ err }, "storing tree-state objects; retrying"),
      controller.signal,
    );

  const startFrom = async (v: ChainView, info: NodeInfo) => {
    synthetic = o.synthetic ?? isSyntheticNode(info);
    const activations = treeActivations(info);
    const sealed = v.sealedTip();
    const reader = createTreeStateReader({ read: (k, r) => o.store.get(k, r), network: o.network });
    const stored = (h: number) => reader.at(o.rangeSize, h);
    let height = catchUpHeight(sealed >= v.floor() ? sealed : v.floor() - 1, info, o.rangeSize, synthetic);
    if (height === sealed && height >= 0) height = await newestStored(height, o.rangeSize, stored);
    const resolved: { start: TreeStateStart; source: TreeStartSource | "given" } | undefined = o.start
      ? { start: o.start, source: "given" }
      : await resolveTreeStart({ height, stored, activations, node: synthetic ? undefined : o.node });
    const roots: SeededRoot[] = [];
    if (resolved) {
      const capture: SubtreeLedger = {
        ...createSubtreeLedger(),
        add: (pool, index, root) => void roots.push({ pool, index, root }),
      };
      await seedLedger(o.store, o.network, capture, resolved.start);
    }
    return { resolved, roots, activations };
  };

  const tailView = async (height: number) => {
    const t = thread;
    if (t === undefined || height <= t.storedThrough() || height > t.processed()) return undefined;
    return t.tailView(height);
  };

  return {
    hooks,
    service: createTreeStateService({
      store: o.store,
      network: o.network,
      rangeSize: o.rangeSize,
      tailView,
      ironwood,
      missing(height) {
        if (synthetic && from !== undefined && height >= from)
          throw new LightedgeError(
            "unavailable",
            "GetTreeState",
            `GetTreeState: tree state at ${height} not computed yet`,
          );
      },
    }),
    async begin(v) {
      const tipAtStart = v.tip()?.height ?? -1;
      // What happened so far is in the view; only later hook calls need replaying.
      queue = [];
      try {
        const info = await retrying(
          () => o.node.info(),
          (err) => o.log.warn({ err }, "node info for tree states; retrying"),
          controller.signal,
        );
        const { resolved, roots, activations } = await startFrom(v, info);
        if (resolved === undefined) {
          o.log.warn(
            { synthetic },
            "no tree-state frontier to start from: GetTreeState falls back to the node (run `lightedge backfill-trees`)",
          );
          o.onEvent?.("tree states: no start frontier; answering from the node");
          return;
        }
        const { start, source } = resolved;
        const replay = await producerBlocksFrom(v, start.height + 1, tipAtStart, controller.signal);
        const t = createTreeStateThread({
          config: {
            network: o.network,
            chainName: CHAIN_NAMES[o.network],
            rangeSize: o.rangeSize,
            activations,
          },
          write,
          ironwood: (h) =>
            retrying(
              () => ironwood(h),
              (err) => o.log.warn({ err }, "ironwood tree state; retrying"),
              controller.signal,
            ),
          onFailure: (message) => {
            o.log.warn({ message }, "tree-state worker");
            o.onEvent?.(`tree states: ${message}`);
          },
        });
        t.start(start, roots);
        t.append(replay);
        // Ranges sealed while the start was resolved (their blocks are in the replay).
        for (let i = Math.floor((start.height + 1) / o.rangeSize); ; i++) {
          const last = (i + 1) * o.rangeSize - 1;
          if (last > v.sealedTip() || i * o.rangeSize <= start.height) break;
          t.seal(
            i,
            replay.filter((b) => b.height >= i * o.rangeSize && b.height <= last),
          );
        }
        thread = t;
        from = start.height + 1;
        for (const call of queue) call();
        o.log.info({ from, source, replayed: replay.length }, "tree states followed");
        o.onEvent?.(`tree states computed from height ${from} (start: ${source})`);
      } catch (err) {
        if (!controller.signal.aborted) {
          o.log.warn({ err }, "tree-state producer not started: GetTreeState falls back to the node");
          o.onEvent?.(`tree states not started: ${err instanceof Error ? err.message : String(err)}`);
        }
      } finally {
        live = true;
        queue = [];
        release();
      }
    },
    coveredFrom: () => from,
    settled: async (height) => thread?.settled(height),
    computedThrough: () => thread?.processed() ?? -1,
    async close() {
      const t = thread;
      if (t !== undefined) {
        const drained = t.settled(t.processed()).catch(() => {});
        await Promise.race([drained, new Promise((r) => setTimeout(r, CLOSE_DRAIN_MS).unref())]);
      }
      controller.abort();
      live = true;
      queue = [];
      release();
      await t?.close();
    },
  };
}
