import { createHash } from "node:crypto";
import { p2pkhScript, scriptAddress } from "./address.ts";
import { ALL_POOLS, COINBASE_VALUE, coinbaseShape, scripts } from "./coinbase.ts";
import { type BlockRandom, blockRandom } from "./prng.ts";
import { buildTxWithId, type TxInSpec, type TxOutSpec, type TxShape } from "./tx-builder.ts";
import type { Network } from "./types.ts";

/**
 * Heavy transparent traffic, an opt-in synthetic mode (`synthetic.transparent: "heavy"`, CLI
 * `--transparent heavy`): from height FIRST_TRAFFIC_HEIGHT on, every synthetic block ends (after its
 * ordinary transactions, before mined mempool ones) with two transparent-only v5 transactions that
 * spend real outputs of the chain:
 *
 * - the **fan-out** F(h) spends the coinbase of h − COINBASE_MATURITY (101 confirmations, so it is
 *   mature; genesis outputs are unspendable, hence FIRST_TRAFFIC_HEIGHT = 102) and pays 2–7 outputs;
 * - the **spender** S(h) spends output j of F(h − SPEND_DELAY[j]) for every j that exists (delay 0:
 *   F(h)'s output 0 in the same block; up to 10,000 blocks later; the last output is never spent)
 *   and pays 1–3 outputs, which nothing spends.
 *
 * Outputs pay a known address (1 in 10), a one-time address (1 in 10: addresses with 1 or 2
 * transactions), or one of POOL_SIZE stable pool addresses (every 8th P2SH) picked log-uniformly,
 * so pool address i gets a share ∝ log((i + 2)/(i + 1)). Measured over 20,000 blocks (seed
 * "traffic-sizes"): each known address ~19,000 transactions (a coinbase every third block, the
 * fan-out spending it, payments and their spends), pool 0 ~14,000, pool 10 ~2,200, pool 100 ~230,
 * pool 250–300 ~100, pool 999 ~25; pool 0's UTXO set goes from ~1,000 outputs at height 5,000
 * (~190 of them spent by 20,000) to ~3,700.
 *
 * Everything is a function of (seed, height, branch of the heights involved), so any block can be
 * generated alone: F(h) needs only the coinbase txid of h − 101 (the same on every branch), S(h) the
 * F(g) it spends, each regenerated from (seed, g, branch of g) — no scan of earlier blocks. Each
 * output is spent at exactly one height (g + SPEND_DELAY[j]) by exactly one transaction, so nothing
 * is spent twice, and a reorg stays consistent: a replaced height's F and S change with its branch,
 * and every later S reads F(g) of g's current branch. The F and S transactions have no shielded
 * parts and draw from their own random streams, so the block's other transactions, its note
 * commitments and its tree states are those of the default chain. Signatures are dummies (nothing
 * verifies them); fees are ZIP 317's conventional fee (5,000 zat per logical action, at least 2).
 */

/** Confirmations of a coinbase the fan-out spends (zebra: spendable from 100). */
export const COINBASE_MATURITY = 101;
/** First height with traffic: the coinbase it spends is at height 1 (genesis outputs are unspendable). */
export const FIRST_TRAFFIC_HEIGHT = COINBASE_MATURITY + 1;
/** Output j of F(g) is spent by S(g + SPEND_DELAY[j]); the last is never spent. */
export const SPEND_DELAY = [0, 1, 10, 100, 1_000, 10_000, Number.POSITIVE_INFINITY] as const;
export const POOL_SIZE = 1_000;
const MARGINAL_FEE = 5_000;

export type TransparentMode = "heavy";

/** Generation context of a chain with heavy traffic: the branch each earlier height is on. */
export interface Traffic {
  branchAt(height: number): number;
}

let pool: Uint8Array[] | undefined;

/** The stable pool's scripts (the same for every seed): P2SH for i % 8 = 7, else P2PKH. */
export function poolScripts(): readonly Uint8Array[] {
  pool ??= Array.from({ length: POOL_SIZE }, (_, i) => {
    const hash = createHash("sha256").update(`lightedge-devnode-pool-${i}`).digest().subarray(0, 20);
    return i % 8 === 7 ? Uint8Array.from([0xa9, 0x14, ...hash, 0x87]) : p2pkhScript(hash);
  });
  return pool;
}

/** Pool address i on `network` (benches pick addresses by expected size: see the module comment). */
export function poolAddress(i: number, network: Network): string {
  return scriptAddress(poolScripts()[i]!, network)!;
}

function pickScript(rand: BlockRandom): Uint8Array {
  const kind = rand.int(10);
  if (kind === 0) return scripts[rand.int(scripts.length)]!;
  if (kind === 1) return p2pkhScript(rand.bytes(20));
  const i = Math.floor((POOL_SIZE + 1) ** rand.float()) - 1;
  return poolScripts()[Math.min(i, POOL_SIZE - 1)]!;
}

/** A dummy scriptSig of the form spending `script` takes (P2PKH: sig, pubkey; P2SH: 0, sig, redeem script). */
function scriptSig(script: Uint8Array, rand: BlockRandom): Uint8Array {
  const sig = rand.bytes(72);
  const key = rand.bytes(33);
  key[0] = 0x02 | (key[0]! & 1);
  if (script.length === 25) return Uint8Array.from([0x48, ...sig, 0x21, ...key]);
  return Uint8Array.from([0x00, 0x48, ...sig, 0x25, 0x51, 0x21, ...key, 0x51, 0xae]);
}

/** `total` split by weights 1–100 into `n` positive values. */
function split(total: number, n: number, rand: BlockRandom): number[] {
  const weights = Array.from({ length: n }, () => 1 + rand.int(100));
  const sum = weights.reduce((a, b) => a + b, 0);
  const values = weights.map((w) => Math.floor((total * w) / sum));
  values[n - 1]! += total - values.reduce((a, b) => a + b, 0);
  return values;
}

const fee = (inputs: number, outputs: number) => MARGINAL_FEE * Math.max(2, inputs, outputs);

function shape(height: number, vin: TxInSpec[], vout: TxOutSpec[]): TxShape {
  return {
    version: 5,
    branchId: ALL_POOLS.branchId,
    vin,
    vout,
    saplingSpends: 0,
    saplingOutputs: 0,
    orchardActions: 0,
    ironwoodActions: 0,
    lockTime: 0,
    expiryHeight: height + 40,
  };
}

export interface TrafficTx {
  shape: TxShape;
  raw: Uint8Array;
  wireTxid: Uint8Array;
}

/** What a spender needs of a fan-out: its txid and outputs. */
interface FanOutOutputs {
  wireTxid: Uint8Array;
  vout: readonly TxOutSpec[];
}

// The coinbase has no shielded parts, so its txid does not depend on the stream it is written with.
const coinbaseRand = blockRandom("coinbase-txid", 0, 0);
const coinbaseTxids = new Map<number, Uint8Array>();
const fanOuts = new Map<string, FanOutOutputs>();
/**
 * Entries each cache keeps (a few MB): a sequential walk finds the coinbase 101 heights back and
 * every fan-out a spender reads, up to SPEND_DELAY[5] back, without rebuilding them.
 */
const CACHE = 16_384;

function remember<K, V>(cache: Map<K, V>, key: K, value: V): V {
  if (cache.size >= CACHE) cache.delete(cache.keys().next().value!);
  cache.set(key, value);
  return value;
}

/** The wire txid of synthetic coinbase `height` (the same on every branch and for every seed). */
export function coinbaseTxid(height: number): Uint8Array {
  return (
    coinbaseTxids.get(height) ??
    remember(coinbaseTxids, height, buildTxWithId(coinbaseShape(height), coinbaseRand).wireTxid)
  );
}

/** Notes the txid of coinbase `height` as a block wrote it (saves building it again for F(h + 101)). */
export function noteCoinbase(height: number, wireTxid: Uint8Array): void {
  if (!coinbaseTxids.has(height)) remember(coinbaseTxids, height, wireTxid);
}

/** F(h) on `branch`: spends coinbase h − 101, pays 2–7 outputs. */
export function fanOut(seed: string, height: number, branch: number): TrafficTx {
  const rand = blockRandom(`${seed}|fanout`, height, branch);
  const n = 2 + rand.int(SPEND_DELAY.length - 1);
  const values = split(COINBASE_VALUE - fee(1, n), n, rand);
  const vout = values.map((value) => ({ value, script: pickScript(rand) }));
  const spent = height - COINBASE_MATURITY;
  const vin = [{ wirePrevTxid: coinbaseTxid(spent), index: 0, script: scriptSig(scripts[spent % 3]!, rand) }];
  const s = shape(height, vin, vout);
  const tx = { shape: s, ...buildTxWithId(s, rand) };
  remember(fanOuts, `${seed}|${height}|${branch}`, { wireTxid: tx.wireTxid, vout });
  return tx;
}

function fanOutOutputs(seed: string, height: number, branch: number): FanOutOutputs {
  const hit = fanOuts.get(`${seed}|${height}|${branch}`);
  if (hit) return hit;
  const f = fanOut(seed, height, branch);
  return { wireTxid: f.wireTxid, vout: f.shape.vout };
}

/** S(h) on `branch`: spends the fan-out outputs due at h (`own` is F(h)), pays 1–3 outputs. */
export function spender(
  seed: string,
  height: number,
  branch: number,
  traffic: Traffic,
  own: TrafficTx,
): TrafficTx {
  const rand = blockRandom(`${seed}|spend`, height, branch);
  const vin: TxInSpec[] = [];
  let total = 0;
  SPEND_DELAY.forEach((delay, j) => {
    const g = height - delay;
    if (!Number.isFinite(delay) || g < FIRST_TRAFFIC_HEIGHT) return;
    const f =
      delay === 0
        ? { wireTxid: own.wireTxid, vout: own.shape.vout }
        : fanOutOutputs(seed, g, traffic.branchAt(g));
    const out = f.vout[j];
    if (!out) return;
    vin.push({ wirePrevTxid: f.wireTxid, index: j, script: scriptSig(out.script, rand) });
    total += out.value;
  });
  const n = 1 + rand.int(3);
  const values = split(total - fee(vin.length, n), n, rand);
  const s = shape(
    height,
    vin,
    values.map((value) => ({ value, script: pickScript(rand) })),
  );
  return { shape: s, ...buildTxWithId(s, rand) };
}

/** The traffic transactions of block `height` on `branch`, in block order (none below FIRST_TRAFFIC_HEIGHT). */
export function trafficTxs(seed: string, height: number, branch: number, traffic: Traffic): TrafficTx[] {
  if (height < FIRST_TRAFFIC_HEIGHT) return [];
  const f = fanOut(seed, height, branch);
  return [f, spender(seed, height, branch, traffic, f)];
}
