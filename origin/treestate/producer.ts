import type { PoolTrees, TreeStateView } from "../../proto/treestate/index.ts";
import {
  encodeTreeStateRange,
  legacyTreeSize,
  parseFinalState,
  SUBTREE_LEAF_COUNT,
  toHex,
  treeStateKey,
} from "../../proto/treestate/index.ts";
import { type BlockNoteCommitments, createFrontierTracker, type FrontierTracker } from "../trees/index.ts";
import { completedSubtreeRoot } from "./completed-subtree.ts";
import { commitmentsOfCompact } from "./leaves.ts";
import type { StoredObjectWrite, SubtreeLedger } from "./subtree-ledger.ts";

export interface TreeStateProducerOptions {
  /** lightedge network (key segment, e.g. "mainnet"). */
  network: string;
  /** TreeState.network ("main", "test", "regtest"). */
  chainName: string;
  rangeSize: number;
  /** Heights at which Sapling and Orchard (NU5) activate: their empty trees read "000000" from there. */
  activations: { sapling?: number; orchard?: number };
  /** Ironwood finalState after a height, from the node ("" = none): its hash is not confirmed. */
  ironwood?: (height: number) => Promise<string>;
  ledger: SubtreeLedger;
  /**
   * The store's sealed tip, when given: snapshots then stay until the head passes them (not only
   * until their range's objects are built), so a reader never finds a height in neither place.
   */
  sealedTip?: () => number;
  /**
   * Keep every snapshot until `release` (the worker thread: a range's snapshots answer for it until
   * its object is stored, which happens after sealing, not before).
   */
  retain?: boolean;
}

/** What the producer reads of a tail block (an IndexedBlock, or one rebuilt from a served frame). */
export interface ProducerBlock {
  height: number;
  /** 32 bytes, wire order. */
  wireHash: Uint8Array;
  time: number;
  treeSizes: { ironwood: number };
  /** The "full" projection's CompactBlock protobuf (no frame header); read when `leaves` is absent. */
  messages?: { full: Uint8Array };
  /** The block's note commitments, when already extracted (the worker thread gets only these). */
  leaves?: BlockNoteCommitments;
}

/** A tail height's tree state plus its Ironwood tree size (non-zero: the node supplies Ironwood). */
export interface TailTreeState {
  view: TreeStateView;
  ironwoodSize: number;
}

/** finalState strings after `height`, where the producer starts. */
export interface TreeStateStart {
  height: number;
  sapling: string;
  orchard: string;
}

export interface TreeStateProducer {
  start(from: TreeStateStart): void;
  /** First height the producer has a tree state for; undefined until started. */
  coveredFrom(): number | undefined;
  /** The indexer's hooks: blocks appended to the tail, rollbacks. */
  onAppend(blocks: readonly ProducerBlock[]): void;
  onRollback(height: number): void;
  /** Objects to write before the head moves past range `index` (none when not covered). */
  rangeObjects(index: number, blocks: readonly ProducerBlock[]): Promise<StoredObjectWrite[]>;
  /**
   * The tree state after a tail height held in memory (not sealed yet), or undefined: not held, or
   * the Ironwood tree is non-empty there (node-sourced, so the caller asks the node).
   */
  tailState(height: number): TreeStateView | undefined;
  /** The tracked tree state after a tail height, Ironwood left empty for the caller to fill. */
  tailView(height: number): TailTreeState | undefined;
  /** The last height appended (start height before any); −1 when not started. */
  last(): number;
  /** Drops snapshots below `height` (their range object is stored); keeps `height` for rollbacks. */
  release(height: number): void;
}

interface Snapshot {
  wireHash: Uint8Array;
  time: number;
  ironwoodSize: number;
  trees: PoolTrees;
  saplingTree: string;
  orchardTree: string;
  /** Subtrees completed by this block: [pool, index, root]. */
  completed: { pool: "sapling" | "orchard"; index: number; root: Uint8Array }[];
}

/** Splits a pool's leaves at subtree boundaries so each completed subtree's root can be read. */
function appendTracked(
  t: FrontierTracker,
  pool: "sapling" | "orchard",
  size: number,
  cms: Uint8Array[],
  out: Snapshot["completed"],
) {
  let at = 0;
  let n = size;
  while (at < cms.length) {
    const room = SUBTREE_LEAF_COUNT - (n % SUBTREE_LEAF_COUNT);
    const part = cms.slice(at, at + room);
    const c: BlockNoteCommitments =
      pool === "sapling" ? { saplingCmus: part, orchardCmxs: [] } : { saplingCmus: [], orchardCmxs: part };
    t.appendBlock(c);
    at += part.length;
    n += part.length;
    if (n % SUBTREE_LEAF_COUNT === 0) {
      const tree = t.snapshot()[pool]!;
      out.push({ pool, index: n / SUBTREE_LEAF_COUNT - 1, root: completedSubtreeRoot(pool, tree) });
    }
  }
}

/**
 * Keeps the Sapling and Orchard frontiers in step with the indexer's tail (≤ one hash per leaf) and
 * turns a sealed range's snapshots into its tree-state object and any subtree-root chunks.
 */
export function createTreeStateProducer(o: TreeStateProducerOptions): TreeStateProducer {
  let tracker: FrontierTracker | undefined;
  let from: number | undefined;
  let last = -1;
  const snaps = new Map<number, Snapshot>();
  const size = { sapling: 0, orchard: 0 };
  const restart = (height: number, sapling: string, orchard: string) => {
    tracker = createFrontierTracker({ sapling, orchard });
    size.sapling = sapling ? legacyTreeSize(parseFinalState(sapling)) : 0;
    size.orchard = orchard ? legacyTreeSize(parseFinalState(orchard)) : 0;
    last = height;
  };

  const activate = (height: number) => {
    if (o.activations.sapling !== undefined && height >= o.activations.sapling) tracker!.activate("sapling");
    if (o.activations.orchard !== undefined && height >= o.activations.orchard) tracker!.activate("orchard");
  };

  const appendOne = (b: ProducerBlock) => {
    const t = tracker!;
    activate(b.height);
    const c = b.leaves ?? commitmentsOfCompact(b.messages!.full);
    const completed: Snapshot["completed"] = [];
    appendTracked(t, "sapling", size.sapling, c.saplingCmus, completed);
    appendTracked(t, "orchard", size.orchard, c.orchardCmxs, completed);
    size.sapling += c.saplingCmus.length;
    size.orchard += c.orchardCmxs.length;
    const s = t.snapshot();
    snaps.set(b.height, {
      wireHash: b.wireHash,
      time: b.time,
      ironwoodSize: b.treeSizes.ironwood,
      trees: { sapling: s.sapling, orchard: s.orchard },
      saplingTree: s.saplingTree,
      orchardTree: s.orchardTree,
      completed,
    });
    last = b.height;
  };

  /** Drops snapshots below `height` (sealed; the stored object answers for them). */
  const prune = (height: number) => {
    for (const h of snaps.keys()) if (h < height) snaps.delete(h);
  };

  const tailView = (height: number): TailTreeState | undefined => {
    const s = snaps.get(height);
    if (s === undefined) return undefined;
    const view: TreeStateView = {
      network: o.chainName,
      height,
      hash: toHex(s.wireHash.slice().reverse()),
      time: s.time,
      saplingTree: s.saplingTree,
      orchardTree: s.orchardTree,
      ironwoodTree: "",
    };
    return { view, ironwoodSize: s.ironwoodSize };
  };

  return {
    start(start) {
      snaps.clear();
      restart(start.height, start.sapling, start.orchard);
      from = start.height + 1;
    },
    coveredFrom: () => from,
    tailState(height) {
      const t = tailView(height);
      return t === undefined || t.ironwoodSize > 0 ? undefined : t.view;
    },
    tailView,
    last: () => (tracker === undefined ? -1 : last),
    release: prune,
    onAppend(blocks) {
      if (tracker === undefined) return;
      for (const b of blocks) if (b.height === last + 1) appendOne(b);
      if (o.sealedTip) prune(o.sealedTip());
    },
    onRollback(height) {
      if (tracker === undefined || height >= last) return;
      for (const h of [...snaps.keys()]) if (h > height) snaps.delete(h);
      const at = snaps.get(height);
      if (at === undefined) {
        // Below what we hold: the snapshots needed are gone; stop until restarted.
        tracker = undefined;
        from = undefined;
        return;
      }
      restart(height, at.saplingTree, at.orchardTree);
    },
    async rangeObjects(index, blocks) {
      if (from === undefined || blocks.length === 0 || blocks[0]!.height < from) return [];
      if (blocks.some((b) => !snaps.has(b.height))) return [];
      const out: StoredObjectWrite[] = [];
      let ironwood = "";
      let ironwoodSize = -1;
      const states = [];
      const newRoots = { sapling: [] as number[], orchard: [] as number[] };
      for (const b of blocks) {
        const s = snaps.get(b.height)!;
        if (o.ironwood && b.treeSizes.ironwood !== ironwoodSize) {
          ironwood = await o.ironwood(b.height);
          ironwoodSize = b.treeSizes.ironwood;
        }
        for (const c of s.completed) {
          o.ledger.add(c.pool, c.index, {
            root: c.root,
            completingHeight: b.height,
            completingWireHash: b.wireHash,
          });
          newRoots[c.pool].push(c.index);
        }
        states.push({
          height: b.height,
          wireHash: b.wireHash,
          time: b.time,
          ...s.trees,
          ironwood: ironwood ? parseFinalState(ironwood) : undefined,
        });
      }
      out.push({
        key: treeStateKey(o.network, o.rangeSize, index),
        bytes: encodeTreeStateRange({ network: o.chainName, blocks: states }),
      });
      for (const pool of ["sapling", "orchard"] as const)
        out.push(...o.ledger.chunkObjects(o.network, pool, newRoots[pool]));
      // The range's last snapshot stays: a rollback to the sealed tip restarts from it.
      if (!o.retain) prune(o.sealedTip ? o.sealedTip() : blocks[blocks.length - 1]!.height);
      return out;
    },
  };
}
