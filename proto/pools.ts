import { create } from "@bufbuild/protobuf";
import { LightedgeError } from "./errors.ts";
import {
  ChainMetadataSchema,
  type CompactBlock,
  CompactBlockSchema,
  CompactOrchardActionSchema,
  type CompactTx,
  CompactTxSchema,
  PoolType,
} from "./index.ts";
import type { Projection } from "./range/keys.ts";

/**
 * Which pools a CompactBlock carries (lightwalletd common/common.go `FilterTxPool`). Frozen; the
 * constants below are the only instances `poolSetFromRequest` returns, so `===` compares sets.
 */
export interface PoolSet {
  readonly transparent: boolean;
  readonly sapling: boolean;
  readonly orchard: boolean;
  readonly ironwood: boolean;
}

const sets: PoolSet[] = [];
for (let mask = 0; mask < 16; mask++) {
  sets.push(
    Object.freeze({
      transparent: (mask & 1) !== 0,
      sapling: (mask & 2) !== 0,
      orchard: (mask & 4) !== 0,
      ironwood: (mask & 8) !== 0,
    }),
  );
}

function maskOf(p: PoolSet): number {
  return (p.transparent ? 1 : 0) | (p.sapling ? 2 : 0) | (p.orchard ? 4 : 0) | (p.ironwood ? 8 : 0);
}

/** The canonical frozen instance for a set of pools. */
export function poolSet(p: PoolSet): PoolSet {
  return sets[maskOf(p)]!;
}

/** GetBlockRange's default (empty poolTypes): Sapling + Orchard + Ironwood. */
export const SHIELDED_POOLS: PoolSet = sets[2 | 4 | 8]!;
export const ALL_POOLS: PoolSet = sets[15]!;

const bitByPoolType: Record<number, number> = {
  [PoolType.TRANSPARENT]: 1,
  [PoolType.SAPLING]: 2,
  [PoolType.ORCHARD]: 4,
  [PoolType.IRONWOOD]: 8,
};

/**
 * A request's `poolTypes` as a PoolSet: empty means Sapling + Orchard + Ironwood (protocol.md,
 * LWD `filterBlockPool`); POOL_TYPE_INVALID or an unknown value is a bad request.
 */
export function poolSetFromRequest(poolTypes: readonly PoolType[]): PoolSet {
  if (poolTypes.length === 0) return SHIELDED_POOLS;
  let mask = 0;
  for (const t of poolTypes) {
    const bit = bitByPoolType[t];
    if (bit === undefined) throw new LightedgeError("bad-request", "pools", `invalid pool type ${t}`);
    mask |= bit;
  }
  return sets[mask]!;
}

/** Pool names as in the CLI (`--pools transparent,sapling,orchard,ironwood`). */
export function poolSetFromNames(names: readonly string[]): PoolSet {
  const byName: Record<string, number> = { transparent: 1, sapling: 2, orchard: 4, ironwood: 8 };
  let mask = 0;
  for (const name of names) {
    const bit = byName[name.trim().toLowerCase()];
    if (bit === undefined) throw new LightedgeError("bad-request", "pools", `unknown pool "${name}"`);
    mask |= bit;
  }
  if (mask === 0) throw new LightedgeError("bad-request", "pools", "no pools named");
  return sets[mask]!;
}

/** A tx keeping only the components of `pools`, or null when none remain (LWD `FilterTxPool`). */
export function filterCompactTx(tx: CompactTx, pools: PoolSet): CompactTx | null {
  const out = create(CompactTxSchema, { index: tx.index, txid: tx.txid, fee: tx.fee });
  if (pools.transparent) {
    out.vin = tx.vin;
    out.vout = tx.vout;
  }
  if (pools.sapling) {
    out.spends = tx.spends;
    out.outputs = tx.outputs;
  }
  if (pools.orchard) out.actions = tx.actions;
  if (pools.ironwood) out.ironwoodActions = tx.ironwoodActions;
  const any = out.vin.length + out.vout.length + out.spends.length + out.outputs.length + out.actions.length;
  return any + out.ironwoodActions.length > 0 ? out : null;
}

/**
 * GetBlockRange's view of a block: txs keep only the requested pools' components, and txs left
 * with none are dropped. The block itself is always kept, even with no txs (LWD `GetBlockRange`).
 */
export function filterCompactBlock(block: CompactBlock, pools: PoolSet): CompactBlock {
  const vtx: CompactTx[] = [];
  for (const tx of block.vtx) {
    const kept = filterCompactTx(tx, pools);
    if (kept !== null) vtx.push(kept);
  }
  return create(CompactBlockSchema, { ...block, vtx });
}

/**
 * The deprecated nullifier RPCs' view (LWD frontend/service.go `pruneCompactBlockToNullifiers`):
 * Sapling spends stay (already just `nf`), Orchard and Ironwood actions keep only `nullifier`,
 * Sapling outputs and vin/vout go, chainMetadata stays present with every tree size zeroed.
 * No tx is dropped here: GetBlockRangeNullifiers drops txs by filtering *before* pruning, so a tx
 * with only Sapling outputs survives as index + txid.
 */
export function nullifiersOnly(block: CompactBlock): CompactBlock {
  const vtx = block.vtx.map((tx) =>
    create(CompactTxSchema, {
      index: tx.index,
      txid: tx.txid,
      fee: tx.fee,
      spends: tx.spends,
      actions: tx.actions.map((a) => create(CompactOrchardActionSchema, { nullifier: a.nullifier })),
      ironwoodActions: tx.ironwoodActions.map((a) =>
        create(CompactOrchardActionSchema, { nullifier: a.nullifier }),
      ),
    }),
  );
  return create(CompactBlockSchema, { ...block, vtx, chainMetadata: create(ChainMetadataSchema) });
}

/**
 * Which stored projection is byte-identical to GetBlockRange with `pools`, if any.
 * - "shielded" is exactly Sapling + Orchard + Ironwood (the empty-poolTypes default).
 * - "full" is GetBlock's block: *every* tx, even one with no components at all (a Sprout-only
 *   JoinSplit tx has no vin, vout or shielded parts). GetBlockRange with all four pools drops
 *   such txs, so it is NOT byte-identical to "full" in general: null, filter "full" instead.
 * Any other set: null (filter "full" with `filterCompactBlock`).
 */
export function storedProjectionFor(pools: PoolSet): "shielded" | "full" | null {
  return maskOf(pools) === maskOf(SHIELDED_POOLS) ? "shielded" : null;
}

export type RangeRpc = "GetBlockRange" | "GetBlockRangeNullifiers";

/**
 * Where a range RPC's blocks come from: a stored projection sent as stored (`project` undefined),
 * or the `full` projection decoded and re-projected per block — one protobuf decode + filter +
 * encode per block, for pool sets nobody stores. The one choice, at the origin and the edge.
 */
export interface RangeSource {
  projection: Projection;
  project?: (block: CompactBlock) => CompactBlock;
}

export function rangeSourceFor(rpc: RangeRpc, pools: PoolSet): RangeSource {
  if (rpc === "GetBlockRangeNullifiers") {
    if (pools === SHIELDED_POOLS) return { projection: "nullifiers" };
    return { projection: "full", project: (b) => nullifiersOnly(filterCompactBlock(b, pools)) };
  }
  const stored = storedProjectionFor(pools);
  if (stored !== null) return { projection: stored };
  return { projection: "full", project: (b) => filterCompactBlock(b, pools) };
}
