import type { Logger } from "pino";
import type { Registry } from "prom-client";
import { LightedgeError } from "../../proto/errors.ts";
import { CHAIN_NAMES } from "../../proto/networks.ts";
import {
  legacyTreeSize,
  parseFinalState,
  SUBTREE_LEAF_COUNT,
  type SubtreePool,
} from "../../proto/treestate/index.ts";
import type { Network } from "../config.ts";
import type { ChainView, IndexHooks } from "../index/index.ts";
import { retrying } from "../index/retry.ts";
import type { NodeInfoSource, TreeStateSource } from "../node/ports.ts";
import type { BlobStore } from "../store/index.ts";
import { followStart } from "./follow-start.ts";
import {
  createTreeStateService,
  createTreeStateThread,
  type StoredObjectWrite,
  type TreeStateService,
  type TreeStateStart,
  type TreeStateThread,
} from "./index.ts";
import { createTreeStateMetrics } from "./metrics.ts";
import { createNodeCheck } from "./node-check.ts";
import { producerBlocksFrom } from "./view-blocks.ts";

/**
 * How long GetTreeState waits for the worker to reach a height it will compute before answering
 * Unavailable: below the edge's wait for the origin's headers (ORIGIN_HEADERS_TIMEOUT_MS, 1 s, in
 * edge/tail/origin-client.ts).
 */
const PRODUCER_WAIT_MS = 500;

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

/** How long `close()` lets the worker finish objects of ranges already sealed. */
const CLOSE_DRAIN_MS = 2_000;

/** At most one comparison of the tail tip with the node per this many ms. */
const TIP_CHECK_MS = 10_000;

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
  return new OriginTreeStates(o);
}

/**
 * The wiring's state machine: `begun` (begin called) → `live` (the start is resolved or given up;
 * queued hook calls replayed) → closed. `thread` exists from `live` on when a start was found.
 */
class OriginTreeStates implements TreeStateWiring {
  readonly hooks: IndexHooks;
  readonly service: TreeStateService;
  readonly #o: TreeStateWiringOptions;
  readonly #controller = new AbortController();
  readonly #check: ReturnType<typeof createNodeCheck>;
  /** Resolves when `live` is set: sealing and `settled` wait for it. */
  readonly #ready: Promise<void>;
  #release: () => void = () => {};
  #begun = false;
  #live = false;
  /** Hook calls made before `live`, replayed in order once the thread exists. */
  #queue: (() => void)[] = [];
  /** Started once the node's activation heights are known; undefined = node fallback only. */
  #thread: TreeStateThread | undefined;
  /** First height the thread computes. */
  #from: number | undefined;
  /** Per pool: subtrees complete before the start (their roots are the node's). */
  #floorIndex: Record<SubtreePool, number> | undefined;
  #lastTipCheck = 0;

  constructor(o: TreeStateWiringOptions) {
    this.#o = o;
    this.#ready = new Promise<void>((resolve) => {
      this.#release = resolve;
    });
    this.service = createTreeStateService({
      store: o.store,
      network: o.network,
      rangeSize: o.rangeSize,
      tail: (height) => this.#tailView(height),
      storedThrough: () => this.#thread?.storedThrough(),
      floorCompleted: (pool) => this.#floorIndex?.[pool],
      missing: async (height, lookAgain) => {
        // A height the worker will compute: ours is the value served, so not the node's meanwhile.
        const t = this.#thread;
        if (t === undefined || t.failed() || this.#from === undefined || height < this.#from)
          return undefined;
        // The worker hashes each block a moment after the indexer appends it (and catches up
        // through the restored tail at start): a wallet that asks for the tip it was just told of
        // waits that moment rather than getting Unavailable — briefly, inside the edge's wait for
        // the origin's answer.
        await Promise.race([
          t.settled(height).catch(() => {}),
          new Promise((resolve) => setTimeout(resolve, PRODUCER_WAIT_MS).unref()),
        ]);
        const view = await lookAgain();
        if (view !== undefined) return view;
        throw new LightedgeError(
          "unavailable",
          "GetTreeState",
          `GetTreeState: tree state at ${height} not computed yet`,
        );
      },
    });
    this.#check = createNodeCheck({
      node: o.node,
      log: o.log,
      metrics: o.registry ? createTreeStateMetrics(o.registry) : undefined,
      ours: (h) => this.service.treeState(h),
    });
    this.hooks = {
      onAppend: (blocks) => this.#later(() => this.#append(blocks)),
      onRollback: (height) => this.#later(() => this.#thread?.rollback(height)),
      rangeObjects: async (index, blocks) => {
        if (!this.#live) await this.#ready;
        this.#thread?.seal(index, blocks);
        return [];
      },
    };
  }

  async begin(v: ChainView): Promise<void> {
    const o = this.#o;
    this.#begun = true;
    const tipAtStart = v.tip()?.height ?? -1;
    // What happened so far is in the view; only later hook calls need replaying.
    this.#queue = [];
    try {
      const info = await retrying(
        () => o.node.info(),
        (err) => o.log.warn({ err }, "node info for tree states; retrying"),
        this.#controller.signal,
      );
      const { resolved, roots, activations } = await followStart(o, v, info);
      if (resolved === undefined) {
        o.log.warn(
          "no tree-state frontier to start from: GetTreeState falls back to the node (run `lightedge backfill-trees`)",
        );
        o.onEvent?.("tree states: no start frontier; answering from the node");
        return;
      }
      const { start, source } = resolved;
      const replay = await producerBlocksFrom(v, start.height + 1, tipAtStart, this.#controller.signal);
      const t = createTreeStateThread({
        config: {
          network: o.network,
          chainName: CHAIN_NAMES[o.network],
          rangeSize: o.rangeSize,
          activations,
        },
        write: (objects) => this.#write(objects),
        onStored: (checks) => {
          if (checks.state) this.#check.add({ kind: "state", view: checks.state });
          for (const c of checks.subtrees) this.#check.add({ kind: "subtree", ...c });
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
      this.#thread = t;
      this.#from = start.height + 1;
      this.#floorIndex = {
        sapling: completedSubtrees(start.sapling),
        orchard: completedSubtrees(start.orchard),
        ironwood: completedSubtrees(start.ironwood),
      };
      for (const call of this.#queue) call();
      o.log.info({ from: this.#from, source, replayed: replay.length }, "tree states followed");
      o.onEvent?.(`tree states computed from height ${this.#from} (start: ${source})`);
    } catch (err) {
      if (!this.#controller.signal.aborted) {
        o.log.warn({ err }, "tree-state producer not started: GetTreeState falls back to the node");
        o.onEvent?.(`tree states not started: ${err instanceof Error ? err.message : String(err)}`);
      }
    } finally {
      this.#goLive();
    }
  }

  coveredFrom(): number | undefined {
    return this.#from;
  }

  checked(): Promise<void> {
    return this.#check.idle();
  }

  async settled(height: number): Promise<void> {
    if (this.#begun) await this.#ready;
    return this.#thread?.settled(height);
  }

  computedThrough(): number {
    return this.#thread?.processed() ?? -1;
  }

  async close(): Promise<void> {
    const t = this.#thread;
    if (t !== undefined) {
      const drained = t.settled(t.processed()).catch(() => {});
      await Promise.race([drained, new Promise((r) => setTimeout(r, CLOSE_DRAIN_MS).unref())]);
    }
    this.#check.close();
    this.#controller.abort();
    this.#goLive();
    await t?.close();
  }

  #goLive(): void {
    this.#live = true;
    this.#queue = [];
    this.#release();
  }

  #later(call: () => void): void {
    if (this.#live) call();
    else this.#queue.push(call);
  }

  #append(blocks: Parameters<NonNullable<IndexHooks["onAppend"]>>[0]): void {
    const t = this.#thread;
    t?.append(blocks);
    const now = Date.now();
    if (t !== undefined && blocks.length > 0 && now - this.#lastTipCheck >= TIP_CHECK_MS) {
      this.#lastTipCheck = now;
      const tip = blocks[blocks.length - 1]!.height;
      // Once the worker has hashed it (a few ms behind), never holding up indexing.
      void t.settled(tip).then(
        () => this.#check.add({ kind: "tip", height: tip }),
        () => {},
      );
    }
  }

  async #tailView(height: number) {
    const t = this.#thread;
    if (t === undefined || height <= t.storedThrough() || height > t.processed()) return undefined;
    return t.tailView(height);
  }

  #write(objects: StoredObjectWrite[]): Promise<void> {
    return retrying(
      async () => {
        for (const w of objects)
          await this.#o.store.put(w.key, w.bytes, {
            contentType: "application/octet-stream",
            immutable: true,
          });
      },
      (err) => this.#o.log.warn({ err }, "storing tree-state objects; retrying"),
      this.#controller.signal,
    );
  }
}
