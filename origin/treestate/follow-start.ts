import { createTreeStateReader, type TreeStateView } from "../../proto/treestate/index.ts";
import type { Network } from "../config.ts";
import type { ChainView } from "../index/index.ts";
import type { NodeInfo, NodeInfoSource, TreeStateSource } from "../node/ports.ts";
import type { BlobStore } from "../store/index.ts";
import type { SeededRoot, TreeStateStart } from "./index.ts";
import { seedLedger } from "./seed-ledger.ts";
import { createSubtreeLedger, type SubtreeLedger } from "./subtree-ledger.ts";
import { resolveTreeStart, type TreeStartSource, treeActivations } from "./tree-start.ts";

/**
 * Where the tree-state worker starts following the chain (origin/treestate/README.md): the sealed
 * tip's stored state when there is one, else a frontier from the node or from genesis, and the
 * subtree roots completed before it (the ledger's seed).
 */
export interface FollowStartOptions {
  store: BlobStore;
  network: Network;
  rangeSize: number;
  node: TreeStateSource & NodeInfoSource;
  /** Hash from genesis however long the chain is (default: regtest and synthetic dev chains). */
  synthetic?: boolean;
  /** Test hook: this frontier instead of a resolved one. */
  start?: TreeStateStart;
}

export interface FollowStart {
  /** Undefined: no frontier to start from (GetTreeState answers from the node). */
  resolved: { start: TreeStateStart; source: TreeStartSource | "given" } | undefined;
  roots: SeededRoot[];
  activations: ReturnType<typeof treeActivations>;
}

/** More blocks than this between the start and the node's tip are left to `lightedge backfill-trees`. */
export const FOLLOW_LIMIT = 10_000;
/** Ranges searched back from the sealed tip for a stored object to restart from (one stat each). */
const RESUME_SEARCH = 64;

/** A synthetic dev chain names itself in getinfo's subversion (origin/devnode/info-rpc.ts). */
export const isSyntheticNode = (info: NodeInfo) => /-synthetic\//.test(info.subversion);

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

export async function followStart(o: FollowStartOptions, v: ChainView, info: NodeInfo): Promise<FollowStart> {
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
}
