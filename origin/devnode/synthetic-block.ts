import { LightedgeError } from "../../proto/errors.ts";
import { computeTxid, merkleRoot } from "../chain/index.ts";
import { knownScripts } from "./address.ts";
import { HEADER_BYTES } from "./header.ts";
import { type BlockRandom, blockRandom } from "./prng.ts";
import { bip34Height, NU63_BRANCH_ID, type TxShape, writeTx } from "./tx-builder.ts";
import type { Network } from "./types.ts";
import { type Era, eraAt } from "./upgrades.ts";
import { ByteWriter } from "./writer.ts";

/** Transactions of one synthetic block (coinbase first) with their wire txids. */
export interface SyntheticBody {
  txs: Uint8Array[];
  wireTxids: Uint8Array[];
  wireMerkleRoot: Uint8Array;
  /** Note commitments this block adds per pool (tree size increments). */
  added: { sapling: number; orchard: number; ironwood: number };
  /** The whole block with zeros where the header goes (its first HEADER_BYTES bytes). */
  block: Buffer;
}

/** Block subsidy the coinbase pays (post-second-halving mainnet value; any constant would do). */
export const COINBASE_VALUE = 156_250_000;
export const scripts = knownScripts();

/** Everything active (NU6.3): synthetic and regtest chains from height 1. */
export const ALL_POOLS: Era = {
  name: "NU6.3",
  branchId: NU63_BRANCH_ID,
  sapling: true,
  orchard: true,
  ironwood: true,
};

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

/** Ordinary payments go to random P2PKH scripts: the known addresses receive only coinbases, which keeps address RPCs computable without scanning the chain. */
function payment(rand: BlockRandom) {
  return {
    value: 10_000 + rand.int(1_000_000),
    script: Uint8Array.from([0x76, 0xa9, 0x14, ...rand.bytes(20), 0x88, 0xac]),
  };
}

/**
 * The coinbase: BIP34 height, pays known address `height % 3`, transparent only, same on every
 * branch; v5 from NU5, v4 before.
 */
export function coinbaseShape(height: number, era: Era = ALL_POOLS): TxShape {
  return {
    version: era.orchard ? 5 : 4,
    branchId: era.branchId,
    vin: [
      {
        wirePrevTxid: new Uint8Array(32),
        index: 0xffffffff,
        script: Uint8Array.from([...bip34Height(height), 0x6c, 0x65]),
      },
    ],
    vout: [{ value: COINBASE_VALUE, script: scripts[height % scripts.length]! }],
    saplingSpends: 0,
    saplingOutputs: 0,
    orchardActions: 0,
    ironwoodActions: 0,
    lockTime: 0,
    expiryHeight: height,
  };
}

/**
 * Generates block `height` on `branch` (0 = original chain; reorgs use new branch numbers). All
 * transactions are written into one buffer after HEADER_BYTES of room, so the caller completes
 * the block by writing the header into `block` (no per-tx copies, no concatenation).
 */
export function syntheticBody(
  seed: string,
  height: number,
  branch: number,
  extra: Uint8Array[] = [],
  era: Era = ALL_POOLS,
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
  const added = { sapling: 0, orchard: 0, ironwood: 0 };
  const w = new ByteWriter(64 * 1024);
  w.pos = HEADER_BYTES;
  w.compactSize(list.length + extra.length);
  const bounds: number[] = [w.pos];
  const wireTxids: Uint8Array[] = [];
  for (const s of list) {
    added.sapling += s.saplingOutputs;
    added.orchard += s.orchardActions;
    added.ironwood += s.ironwoodActions;
    wireTxids.push(writeTx(w, s, rand));
    bounds.push(w.pos);
  }
  for (const t of extra) {
    w.bytes(t);
    wireTxids.push(computeTxid(t, { strictV6: false }));
    bounds.push(w.pos);
  }
  const block = w.buf.subarray(0, w.pos);
  const txs = wireTxids.map((_, i) => block.subarray(bounds[i], bounds[i + 1]));
  return { txs, wireTxids, wireMerkleRoot: merkleRoot(wireTxids), added, block };
}
