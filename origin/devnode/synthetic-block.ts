import { LightedgeError } from "../../proto/errors.ts";
import { computeTxid, merkleRoot } from "../chain/index.ts";
import { ALL_POOLS, coinbaseShape } from "./coinbase.ts";
import { HEADER_BYTES } from "./header.ts";
import { type BlockRandom, blockRandom } from "./prng.ts";
import { noteCoinbase, type Traffic, trafficTxs } from "./transparent-traffic.ts";
import { type TxShape, writeTx } from "./tx-builder.ts";
import type { Network } from "./types.ts";
import { type Era, eraAt } from "./upgrades.ts";
import { ByteWriter } from "./writer.ts";

export { ALL_POOLS, COINBASE_VALUE, coinbaseShape, scripts } from "./coinbase.ts";

/** Transactions of one synthetic block (coinbase first) with their wire txids. */
export interface SyntheticBody {
  txs: Uint8Array[];
  wireTxids: Uint8Array[];
  wireMerkleRoot: Uint8Array;
  /** Note commitments this block adds per pool (tree size increments). */
  added: { sapling: number; orchard: number; ironwood: number };
  /** The whole block with zeros where the header goes (its first HEADER_BYTES bytes). */
  block: Buffer;
  /** Shapes of the generated transactions (the first shapes.length of txs; mined ones follow). */
  shapes: TxShape[];
}

/** The era a chain's block at `height` is built for: a synthetic chain has every pool from genesis. */
export function blockEra(network: Network, synthetic: boolean, height: number): Era {
  return synthetic ? ALL_POOLS : eraAt(network, false, height);
}

/**
 * Size mix, tuned to ~5–6 KB of compact data per block on average: most blocks carry 0–4 ordinary
 * transactions (~0.6 KB compact); 1 in 18 is a burst of 20–60 transactions, mostly Sapling outputs
 * (~85 KB compact), like mainnet's 2022–23 output spam. Only what the era allows: before NU6.3 the
 * Ironwood kinds become Orchard (v5) ones, before NU5 every kind is a v4 Sapling transaction.
 */
export function blockShapes(rand: BlockRandom, height: number, era: Era): TxShape[] {
  const burst = rand.int(18) === 0;
  const count = burst ? 20 + rand.int(40) : rand.int(5);
  const out: TxShape[] = [];
  for (let i = 0; i < count; i++) {
    const big = burst ? 1 + rand.int(15) : 1;
    // Bursts are mostly v4 Sapling outputs (as mainnet's 2022–23 spam was).
    const kind = burst && rand.int(10) < 6 ? 0 : rand.int(5);
    const base: TxShape = {
      version: 5,
      vin: [],
      vout: [],
      saplingSpends: 0,
      saplingOutputs: 0,
      orchardActions: 0,
      ironwoodActions: 0,
      lockTime: i + 1, // keeps txids unique within the block
      expiryHeight: height + 40,
      branchId: era.branchId,
    };
    if (!era.orchard) {
      if (kind === 4)
        out.push({
          ...base,
          version: 4,
          vin: [randomInput(rand)],
          vout: [payment(rand)],
          saplingOutputs: big,
        });
      else out.push({ ...base, version: 4, saplingSpends: kind === 0 ? 1 : 0, saplingOutputs: 2 * big });
    } else if (!era.ironwood && (kind === 2 || kind === 3))
      out.push({ ...base, orchardActions: 2 * big, saplingOutputs: kind === 3 ? 1 : 0 });
    else if (kind === 0) out.push({ ...base, version: 4, saplingSpends: 1, saplingOutputs: 2 * big });
    else if (kind === 1) out.push({ ...base, orchardActions: 2 * big });
    else if (kind === 2) out.push({ ...base, version: 6, ironwoodActions: 2 * big });
    else if (kind === 3) out.push({ ...base, version: 6, orchardActions: 2, ironwoodActions: 2 * big });
    else out.push({ ...base, vin: [randomInput(rand)], vout: [payment(rand)], saplingOutputs: big });
  }
  return out;
}

function randomInput(rand: BlockRandom) {
  return { wirePrevTxid: rand.bytes(32), index: rand.int(4), script: rand.bytes(106) };
}

/** Ordinary payments go to random P2PKH scripts (addresses with one transaction; the input spends nothing real). */
function payment(rand: BlockRandom) {
  return {
    value: 10_000 + rand.int(1_000_000),
    script: Uint8Array.from([0x76, 0xa9, 0x14, ...rand.bytes(20), 0x88, 0xac]),
  };
}

/**
 * Generates block `height` on `branch` (0 = original chain; reorgs use new branch numbers). All
 * transactions are written into one buffer after HEADER_BYTES of room, so the caller completes
 * the block by writing the header into `block` (no per-tx copies, no concatenation). With
 * `traffic` (heavy transparent mode) the block's transparent traffic follows its ordinary
 * transactions (transparent-traffic.ts); `extra` (mined mempool transactions) comes last.
 */
export function syntheticBody(
  seed: string,
  height: number,
  branch: number,
  extra: Uint8Array[] = [],
  era: Era = ALL_POOLS,
  traffic?: Traffic,
): SyntheticBody {
  if (!era.sapling)
    throw new LightedgeError(
      "bad-request",
      "devnode.block",
      `devnode: no synthetic blocks before Sapling (height ${height})`,
    );
  const rand = blockRandom(seed, height, branch);
  // Height 0 is a coinbase-only genesis: pools activate at 1 on synthetic chains (upgrades.ts).
  const list = [coinbaseShape(height, era), ...(height === 0 ? [] : blockShapes(rand, height, era))];
  const transfers = traffic ? trafficTxs(seed, height, branch, traffic) : [];
  const added = { sapling: 0, orchard: 0, ironwood: 0 };
  const w = new ByteWriter(64 * 1024);
  w.pos = HEADER_BYTES;
  w.compactSize(list.length + transfers.length + extra.length);
  const bounds: number[] = [w.pos];
  const wireTxids: Uint8Array[] = [];
  for (const s of list) {
    added.sapling += s.saplingOutputs;
    added.orchard += s.orchardActions;
    added.ironwood += s.ironwoodActions;
    wireTxids.push(writeTx(w, s, rand));
    bounds.push(w.pos);
  }
  if (traffic) noteCoinbase(height, wireTxids[0]!);
  for (const t of transfers) {
    w.bytes(t.raw);
    wireTxids.push(t.wireTxid);
    bounds.push(w.pos);
  }
  for (const t of extra) {
    w.bytes(t);
    wireTxids.push(computeTxid(t, { strictV6: false }));
    bounds.push(w.pos);
  }
  const block = w.buf.subarray(0, w.pos);
  const txs = wireTxids.map((_, i) => block.subarray(bounds[i], bounds[i + 1]));
  for (const t of transfers) list.push(t.shape);
  return { txs, wireTxids, wireMerkleRoot: merkleRoot(wireTxids), added, block, shapes: list };
}
