import type { Logger } from "pino";
import { createTreeStateReader } from "../../proto/treestate/index.ts";
import type { Network } from "../config.ts";
import type { ChainView, IndexHooks } from "../index/index.ts";
import { retrying } from "../index/retry.ts";
import type { NodeInfo, NodeInfoSource, TreeStateSource } from "../node/ports.ts";
import type { BlobStore } from "../store/index.ts";
import {
  createSubtreeLedger,
  createTreeStateProducer,
  createTreeStateService,
  type TreeStateProducer,
  type TreeStateService,
  type TreeStateStart,
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
  /** Pass to the indexer: keeps the producer in step and writes tree objects before each head. */
  hooks: IndexHooks;
  /** Pass to the origin server: stored and tracked tree states before the node. */
  service: TreeStateService;
  /** After `indexer.start()`: resolves the start frontier, replays the restored tail, goes live. */
  begin(view: ChainView): Promise<void>;
  /** First height with a computed tree state (undefined: node only). */
  coveredFrom(): number | undefined;
  close(): void;
}

/** More blocks than this between the start and the node's tip are left to `lightedge backfill-trees`. */
export const FOLLOW_LIMIT = 10_000;

/**
 * Where to start following: `height`, unless a real node's tip is far ahead (an initial sync of
 * mainnet from genesis would hash all of history on the indexing thread; the backfill does that on
 * worker threads). Then a range boundary a range below the node's tip, from its z_gettreestate.
 */
function catchUpHeight(height: number, info: NodeInfo, rangeSize: number, synthetic: boolean): number {
  if (synthetic || info.blocks - height <= FOLLOW_LIMIT) return height;
  return (Math.floor(info.blocks / rangeSize) - 1) * rangeSize - 1;
}

/** A synthetic dev chain names itself in getinfo's subversion (origin/devnode/info-rpc.ts). */
export const isSyntheticNode = (info: NodeInfo) => /-synthetic\//.test(info.subversion);

/**
 * Tree states while indexing (issue 10; origin/treestate/README.md): the producer follows the
 * indexer's tail through its hooks. Hook calls that arrive before the start frontier is known are
 * queued and replayed in order, and sealing waits for it, so no range is sealed without its object.
 */
export function createTreeStateWiring(o: TreeStateWiringOptions): TreeStateWiring {
  const controller = new AbortController();
  let live = false;
  let queue: (() => void)[] = [];
  let release: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    release = resolve;
  });
  const ironwood = (height: number) => nodeFinalState(o.node, height, "ironwood");
  /** Built once the node's activation heights are known; undefined = node fallback only. */
  let producer: TreeStateProducer | undefined;
  const later = (call: () => void) => (live ? call() : queue.push(call));

  const hooks: IndexHooks = {
    onAppend: (blocks) => later(() => producer?.onAppend(blocks)),
    onRollback: (height) => later(() => producer?.onRollback(height)),
    rangeObjects: async (index, blocks) => {
      await ready;
      return (await producer?.rangeObjects(index, blocks)) ?? [];
    },
  };

  const startFrom = async (v: ChainView, info: NodeInfo) => {
    const synthetic = o.synthetic ?? isSyntheticNode(info);
    const activations = treeActivations(info);
    const ledger = createSubtreeLedger();
    const built = createTreeStateProducer({
      network: o.network,
      chainName: CHAIN_NAMES[o.network],
      rangeSize: o.rangeSize,
      activations,
      ironwood,
      ledger,
      sealedTip: () => v.sealedTip(),
    });
    const sealed = v.sealedTip();
    const height = catchUpHeight(sealed >= v.floor() ? sealed : v.floor() - 1, info, o.rangeSize, synthetic);
    const reader = createTreeStateReader({ read: (k, r) => o.store.get(k, r), network: o.network });
    const resolved: { start: TreeStateStart; source: TreeStartSource | "given" } | undefined = o.start
      ? { start: o.start, source: "given" }
      : await resolveTreeStart({
          height,
          stored: (h) => reader.at(o.rangeSize, h),
          activations,
          node: synthetic ? undefined : o.node,
        });
    if (resolved) await seedLedger(o.store, o.network, ledger, resolved.start);
    return { resolved, synthetic, built };
  };

  return {
    hooks,
    service: createTreeStateService({
      store: o.store,
      network: o.network,
      rangeSize: o.rangeSize,
      tailView: (h) => producer?.tailView(h),
      ironwood,
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
        const { resolved, synthetic, built } = await startFrom(v, info);
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
        built.start(start);
        built.onAppend(replay);
        producer = built;
        for (const call of queue) call();
        o.log.info({ from: start.height + 1, source, replayed: replay.length }, "tree states followed");
        o.onEvent?.(`tree states computed from height ${start.height + 1} (start: ${source})`);
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
    coveredFrom: () => producer?.coveredFrom(),
    close() {
      controller.abort();
      live = true;
      queue = [];
      release();
    },
  };
}
