import { toHex } from "../../proto/bytes.ts";
import type { PoolTrees, TreeStateView } from "../../proto/treestate/index.ts";
import {
  encodeTreeStateRange,
  legacyTreeSize,
  parseFinalState,
  SUBTREE_LEAF_COUNT,
  treeStateKey,
} from "../../proto/treestate/index.ts";
import { type BlockNoteCommitments, createFrontierTracker, type FrontierTracker } from "../trees/index.ts";
import { completedSubtreeRoot } from "./completed-subtree.ts";
import { commitmentsOfCompact } from "./leaves.ts";
import type { StoredObjectWrite, SubtreeLedger } from "./subtree-ledger.ts";

/** The three pools, in the stored record's order (proto/treestate/range-record.ts). */
const POOLS = ["sapling", "orchard", "ironwood"] as const;
type Pool = (typeof POOLS)[number];

export interface TreeStateProducerOptions {
  /** lightedge network (key segment, e.g. "mainnet"). */
  network: string;
  /** TreeState.network ("main", "test", "regtest"). */
  chainName: string;
  rangeSize: number;
  /**
   * Heights at which Sapling, Orchard (NU5) and Ironwood (NU6.3) activate: their empty trees read
   * "000000" from there.
   */
  activations: { sapling?: number; orchard?: number; ironwood?: number };
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
  /** The "full" projection's CompactBlock protobuf (no frame header); read when `leaves` is absent. */
  messages?: { full: Uint8Array };
  /** The block's note commitments, when already extracted (the worker thread gets only these). */
  leaves?: BlockNoteCommitments;
}

/** finalState strings after `height`, where the producer starts ("" = pool not active). */
export interface TreeStateStart {
  height: number;
  sapling: string;
  orchard: string;
  /** Absent = "" (Ironwood not active). */
  ironwood?: string;
}

/** A subtree a block completed. */
export interface CompletedSubtree {
  pool: Pool;
  index: number;
  /** 32 bytes LE. */
  root: Uint8Array;
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
  /** The tree state after a tail height held in memory (not stored yet), or undefined. */
  tailState(height: number): TreeStateView | undefined;
  /** Subtrees completed by the block at a held height (empty when none or not held). */
  completedAt(height: number): readonly CompletedSubtree[];
  /** The last height appended (start height before any); −1 when not started. */
  last(): number;
  /** Drops snapshots below `height` (their range object is stored); keeps `height` for rollbacks. */
  release(height: number): void;
}

interface Snapshot {
  wireHash: Uint8Array;
  time: number;
  trees: PoolTrees;
  finalStates: Record<Pool, string>;
  /** Subtrees completed by this block. */
  completed: CompletedSubtree[];
}

const only = (pool: Pool, part: Uint8Array[]): BlockNoteCommitments => ({
  saplingCmus: pool === "sapling" ? part : [],
  orchardCmxs: pool === "orchard" ? part : [],
  ironwoodCmxs: pool === "ironwood" ? part : [],
});

const leavesOf = (c: BlockNoteCommitments, pool: Pool): Uint8Array[] =>
  pool === "sapling" ? c.saplingCmus : pool === "orchard" ? c.orchardCmxs : (c.ironwoodCmxs ?? []);

/** Splits a pool's leaves at subtree boundaries so each completed subtree's root can be read. */
function appendTracked(
  t: FrontierTracker,
  pool: Pool,
  size: number,
  cms: Uint8Array[],
  out: CompletedSubtree[],
) {
  let at = 0;
  let n = size;
  while (at < cms.length) {
    const room = SUBTREE_LEAF_COUNT - (n % SUBTREE_LEAF_COUNT);
    const part = cms.slice(at, at + room);
    t.appendBlock(only(pool, part));
    at += part.length;
    n += part.length;
    if (n % SUBTREE_LEAF_COUNT === 0) {
      const tree = t.snapshot()[pool]!;
      out.push({ pool, index: n / SUBTREE_LEAF_COUNT - 1, root: completedSubtreeRoot(pool, tree) });
    }
  }
}

/**
 * Keeps the Sapling, Orchard and Ironwood frontiers in step with the indexer's tail (≤ one hash per
 * leaf; Ironwood with the Orchard hash, origin/trees/README.md) and turns a sealed range's snapshots
 * into its tree-state object and any subtree-root chunks.
 */
export function createTreeStateProducer(o: TreeStateProducerOptions): TreeStateProducer {
  let tracker: FrontierTracker | undefined;
  let from: number | undefined;
  let last = -1;
  const snaps = new Map<number, Snapshot>();
  const size: Record<Pool, number> = { sapling: 0, orchard: 0, ironwood: 0 };
  const restart = (height: number, states: Record<Pool, string>) => {
    tracker = createFrontierTracker(states);
    for (const pool of POOLS) size[pool] = states[pool] ? legacyTreeSize(parseFinalState(states[pool])) : 0;
    last = height;
  };

  const activate = (height: number) => {
    for (const pool of POOLS) {
      const a = o.activations[pool];
      if (a !== undefined && height >= a) tracker!.activate(pool);
    }
  };

  const appendOne = (b: ProducerBlock) => {
    const t = tracker!;
    activate(b.height);
    const c = b.leaves ?? commitmentsOfCompact(b.messages!.full);
    const completed: CompletedSubtree[] = [];
    for (const pool of POOLS) {
      const cms = leavesOf(c, pool);
      appendTracked(t, pool, size[pool], cms, completed);
      size[pool] += cms.length;
    }
    const s = t.snapshot();
    snaps.set(b.height, {
      wireHash: b.wireHash,
      time: b.time,
      trees: { sapling: s.sapling, orchard: s.orchard, ironwood: s.ironwood },
      finalStates: { sapling: s.saplingTree, orchard: s.orchardTree, ironwood: s.ironwoodTree },
      completed,
    });
    last = b.height;
  };

  /** Drops snapshots below `height` (sealed; the stored object answers for them). */
  const prune = (height: number) => {
    for (const h of snaps.keys()) if (h < height) snaps.delete(h);
  };

  return {
    start(start) {
      snaps.clear();
      restart(start.height, {
        sapling: start.sapling,
        orchard: start.orchard,
        ironwood: start.ironwood ?? "",
      });
      from = start.height + 1;
    },
    coveredFrom: () => from,
    tailState(height) {
      const s = snaps.get(height);
      if (s === undefined) return undefined;
      return {
        network: o.chainName,
        height,
        hash: toHex(s.wireHash.slice().reverse()),
        time: s.time,
        saplingTree: s.finalStates.sapling,
        orchardTree: s.finalStates.orchard,
        ironwoodTree: s.finalStates.ironwood,
      };
    },
    completedAt: (height) => snaps.get(height)?.completed ?? [],
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
      restart(height, at.finalStates);
    },
    async rangeObjects(index, blocks) {
      if (from === undefined || blocks.length === 0 || blocks[0]!.height < from) return [];
      if (blocks.some((b) => !snaps.has(b.height))) return [];
      const out: StoredObjectWrite[] = [];
      const states = [];
      const newRoots: Record<Pool, number[]> = { sapling: [], orchard: [], ironwood: [] };
      for (const b of blocks) {
        const s = snaps.get(b.height)!;
        for (const c of s.completed) {
          o.ledger.add(c.pool, c.index, {
            root: c.root,
            completingHeight: b.height,
            completingWireHash: b.wireHash,
          });
          newRoots[c.pool].push(c.index);
        }
        states.push({ height: b.height, wireHash: b.wireHash, time: b.time, ...s.trees });
      }
      out.push({
        key: treeStateKey(o.network, o.rangeSize, index),
        bytes: encodeTreeStateRange({ network: o.chainName, blocks: states }),
      });
      for (const pool of POOLS) out.push(...o.ledger.chunkObjects(o.network, pool, newRoots[pool]));
      // The range's last snapshot stays: a rollback to the sealed tip restarts from it.
      if (!o.retain) prune(o.sealedTip ? o.sealedTip() : blocks[blocks.length - 1]!.height);
      return out;
    },
  };
}
