import type { Logger } from "pino";
import type { Registry } from "prom-client";
import { LightedgeError } from "../../proto/errors.ts";
import {
  createTreeStateReader,
  legacyTreeSize,
  parseFinalState,
  SUBTREE_LEAF_COUNT,
  type SubtreePool,
  type TreeStateView,
} from "../../proto/treestate/index.ts";
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
import { createTreeStateMetrics } from "../treestate/metrics.ts";
import { createNodeCheck } from "../treestate/node-check.ts";
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
  /** The origin's metrics registry: the node-comparison alarm is registered there. */
  registry?: Registry;
  /**
   * True for a chain whose history the origin hashes from genesis however long it is (regtest and
   * the dev node's synthetic chains are; default: detect). Not a statement about the node's values:
   * those are compared everywhere.
   */
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
  /** Resolves once every queued comparison with the node has run (tests). */
  checked(): Promise<void>;
  /**
   * Resolves once tree states through `height` are computed and the objects of every range sealed
   * by then are stored (tests, benchmarks); once `begin` has resolved the start, at once when no
   * producer runs.
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

/** At most one comparison of the tail tip with the node per this many ms. */
const TIP_CHECK_MS = 10_000;

/**
 * Where to start following: `height`, unless a mainnet/testnet node's tip is far ahead (an initial
 * sync from genesis would hash all of history; the backfill does that on several worker threads).
 * Then a range boundary a range below the node's tip, from its z_gettreestate. Regtest and
 * synthetic chains are always hashed from where the origin's index starts (genesis by default).
 */
function catchUpHeight(height: number, info: NodeInfo, rangeSize: number, fromGenesis: boolean): number {
  if (fromGenesis || info.blocks - height <= FOLLOW_LIMIT) return height;
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

/** The pool's subtree count in a finalState ("" = none). */
const completedSubtrees = (finalState: string | undefined) =>
  finalState ? Math.floor(legacyTreeSize(parseFinalState(finalState)) / SUBTREE_LEAF_COUNT) : 0;

/**
 * Tree states while indexing (origin/treestate/README.md), on a worker thread: the hooks only post
 * messages (a block's leaves, rollbacks, sealed ranges), so indexing never waits for hashing and
 * sealing never waits for tree objects, which are stored when the worker finishes them. Hook calls
 * before the start frontier is known are queued and replayed in order; until then (node info and
 * one stored read) sealing waits, so no sealed range is missed. Once a range's objects are stored
 * its last tree state and completed subtrees are compared with the node's (node-check.ts).
 */
export function createTreeStateWiring(o: TreeStateWiringOptions): TreeStateWiring {
  const controller = new AbortController();
  let live = false;
  let queue: (() => void)[] = [];
  let release: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    release = resolve;
  });
  /** Started once the node's activation heights are known; undefined = node fallback only. */
  let thread: TreeStateThread | undefined;
  let from: number | undefined;
  /** Per pool: subtrees complete before the start (their roots are the node's). */
  let floorIndex: Record<SubtreePool, number> | undefined;
  let lastTipCheck = 0;
  /** Set by `begin`: until its start is resolved, `settled` waits (the producer may be about to run). */
  let begun = false;
  const later = (call: () => void) => (live ? call() : queue.push(call));

  const tailView = async (height: number) => {
    const t = thread;
    if (t === undefined || height <= t.storedThrough() || height > t.processed()) return undefined;
    return t.tailView(height);
  };
  const service = createTreeStateService({
    store: o.store,
    network: o.network,
    rangeSize: o.rangeSize,
    tail: tailView,
    storedThrough: () => thread?.storedThrough(),
    floorCompleted: (pool) => floorIndex?.[pool],
    missing(height) {
      // A height the worker will compute: ours is the value served, so not the node's meanwhile.
      if (thread !== undefined && !thread.failed() && from !== undefined && height >= from)
        throw new LightedgeError(
          "unavailable",
          "GetTreeState",
          `GetTreeState: tree state at ${height} not computed yet`,
        );
    },
  });
  const check = createNodeCheck({
    node: o.node,
    log: o.log,
    metrics: o.registry ? createTreeStateMetrics(o.registry) : undefined,
    ours: (h) => service.treeState(h),
  });

  const hooks: IndexHooks = {
    onAppend: (blocks) =>
      later(() => {
        thread?.append(blocks);
        const now = Date.now();
        if (thread !== undefined && blocks.length > 0 && now - lastTipCheck >= TIP_CHECK_MS) {
          lastTipCheck = now;
          const tip = blocks[blocks.length - 1]!.height;
          // Once the worker has hashed it (a few ms behind), never holding up indexing.
          void thread.settled(tip).then(
            () => check.add({ kind: "tip", height: tip }),
            () => {},
          );
        }
      }),
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
    const fromGenesis = o.synthetic ?? (o.network === "regtest" || isSyntheticNode(info));
    const activations = treeActivations(info);
    const sealed = v.sealedTip();
    const reader = createTreeStateReader({ read: (k, r) => o.store.get(k, r), network: o.network });
    const stored = (h: number) => reader.at(o.rangeSize, h);
    let height = catchUpHeight(sealed >= v.floor() ? sealed : v.floor() - 1, info, o.rangeSize, fromGenesis);
    if (height === sealed && height >= 0) height = await newestStored(height, o.rangeSize, stored);
    const resolved: { start: TreeStateStart; source: TreeStartSource | "given" } | undefined = o.start
      ? { start: o.start, source: "given" }
      : await resolveTreeStart({ height, stored, activations, node: o.node });
    const roots: SeededRoot[] = [];
    if (resolved) {
      const capture: SubtreeLedger = {
        ...createSubtreeLedger(),
        add: (pool, index, root) => void roots.push({ pool, index, root }),
      };
      await seedLedger(o.store, o.network, capture, resolved.start, o.node);
    }
    return { resolved, roots, activations };
  };

  return {
    hooks,
    service,
    async begin(v) {
      begun = true;
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
          onStored(checks) {
            if (checks.state) check.add({ kind: "state", view: checks.state });
            for (const c of checks.subtrees) check.add({ kind: "subtree", ...c });
          },
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
        floorIndex = {
          sapling: completedSubtrees(start.sapling),
          orchard: completedSubtrees(start.orchard),
          ironwood: completedSubtrees(start.ironwood),
        };
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
    checked: () => check.idle(),
    settled: async (height) => {
      if (begun) await ready;
      return thread?.settled(height);
    },
    computedThrough: () => thread?.processed() ?? -1,
    async close() {
      const t = thread;
      if (t !== undefined) {
        const drained = t.settled(t.processed()).catch(() => {});
        await Promise.race([drained, new Promise((r) => setTimeout(r, CLOSE_DRAIN_MS).unref())]);
      }
      check.close();
      controller.abort();
      live = true;
      queue = [];
      release();
      await t?.close();
    },
  };
}
