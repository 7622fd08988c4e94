import { create } from "@bufbuild/protobuf";
import {
  ChainMetadataSchema,
  type CompactBlock,
  CompactBlockSchema,
  CompactOrchardActionSchema,
  CompactSaplingOutputSchema,
  CompactSaplingSpendSchema,
  type CompactTx,
  CompactTxInSchema,
  CompactTxSchema,
  TxOutSchema,
} from "../../proto/index.ts";
import { filterCompactBlock, nullifiersOnly, type PoolSet, SHIELDED_POOLS } from "../../proto/pools.ts";
import type { ActionBundle, ParsedBlock, ParsedTx, TreeSizes } from "./types.ts";

export interface CompactOptions {
  /**
   * "full": GetBlock (every tx, every pool). A PoolSet: GetBlockRange (txs left empty dropped).
   * "nullifiers": GetBlockRangeNullifiers with default pools (shielded, then pruned).
   */
  projection: "full" | "nullifiers" | PoolSet;
  /** Prune to nullifiers after projecting (GetBlockNullifiers = full + nullifiers). */
  nullifiers?: boolean;
  /** chainMetadata tree sizes (from the node's `getblock 1` `trees`); zeros when absent. */
  treeSizes?: TreeSizes;
  /** 32 zero bytes for every txid, as lightwalletd's parser fixture has (it computes none). */
  zeroTxids?: boolean;
}

const ZERO_TXID = new Uint8Array(32);

function actions(bundle: ActionBundle | null) {
  if (bundle === null) return [];
  return bundle.actions.map((a) =>
    create(CompactOrchardActionSchema, {
      nullifier: a.nullifier,
      cmx: a.cmx,
      ephemeralKey: a.ephemeralKey,
      ciphertext: a.encCiphertext.subarray(0, 52),
    }),
  );
}

/** A tx with every component (LWD parser `ToCompact`; vin is left out for the coinbase). */
export function toCompactTx(tx: ParsedTx, zeroTxid = false): CompactTx {
  return create(CompactTxSchema, {
    index: BigInt(tx.index),
    txid: zeroTxid ? ZERO_TXID : tx.wireTxid,
    spends: tx.sapling.spends.map((s) => create(CompactSaplingSpendSchema, { nf: s.nf })),
    outputs: tx.sapling.outputs.map((o) =>
      create(CompactSaplingOutputSchema, {
        cmu: o.cmu,
        ephemeralKey: o.ephemeralKey,
        ciphertext: o.encCiphertext.subarray(0, 52),
      }),
    ),
    actions: actions(tx.orchard),
    vin:
      tx.index === 0
        ? []
        : tx.vin.map((i) =>
            create(CompactTxInSchema, { prevoutTxid: i.wirePrevoutTxid, prevoutIndex: i.prevoutIndex }),
          ),
    vout: tx.vout.map((o) =>
      create(TxOutSchema, {
        value: BigInt.asUintN(64, (BigInt(o.valueHigh) << 32n) | BigInt(o.valueLow)),
        scriptPubKey: o.scriptPubKey,
      }),
    ),
    ironwoodActions: actions(tx.ironwood),
  });
}

/**
 * The CompactBlock message for a parsed block (the reference path; `projectBlock` produces the same
 * bytes faster). hash/prevHash/txid are in internal byte order; `header` stays unset, `fee` 0.
 */
export function toCompactBlock(block: ParsedBlock, options: CompactOptions): CompactBlock {
  const sizes = options.treeSizes;
  const full = create(CompactBlockSchema, {
    height: BigInt(block.height),
    hash: block.wireHash,
    prevHash: block.header.wirePrevHash,
    time: block.header.time,
    vtx: block.txs.map((tx) => toCompactTx(tx, options.zeroTxids)),
    chainMetadata: create(ChainMetadataSchema, {
      saplingCommitmentTreeSize: sizes?.sapling ?? 0,
      orchardCommitmentTreeSize: sizes?.orchard ?? 0,
      ironwoodCommitmentTreeSize: sizes?.ironwood ?? 0,
    }),
  });
  const p = options.projection;
  if (p === "nullifiers") return nullifiersOnly(filterCompactBlock(full, SHIELDED_POOLS));
  const projected = p === "full" ? full : filterCompactBlock(full, p);
  return options.nullifiers ? nullifiersOnly(projected) : projected;
}
