import { decodeBase58check, TADDR_PREFIXES } from "../../proto/taddress.ts";
import { base58check } from "./address.ts";
import type { DevChain, IndexedTx } from "./types.ts";

export interface Utxo {
  address: string;
  txid: string;
  outputIndex: number;
  script: string;
  satoshis: number;
  height: number;
}

/** Where a mined transaction is: its block's height and its position in the block. */
export interface TxLocation {
  height: number;
  index: number;
}

/**
 * The chain's transactions and transparent addresses, as zebrad 7.0.0 answers for them (blocks up
 * to `tip` / `end`; the mempool never counts):
 * - `txids`: every transaction with an output paying one of the addresses or an input spending
 *   such an output, start ≤ height ≤ end, deduplicated, in chain order (height, then position);
 * - `utxos`: the outputs paying them that no transaction up to `tip` spends, in chain order
 *   (height, position, output index);
 * - `balance`: the sum of those (`balance`) and of every output ever paid to them (`received`);
 * - `locate`: a txid's height and position (getrawtransaction).
 * Only P2PKH and P2SH outputs have addresses. The genesis block's outputs are not indexed (zebra
 * skips them: consensus makes them unspendable); its transactions are located.
 */
export interface DevAddressIndex {
  txids(addresses: string[], start: number, end: number): Promise<string[]>;
  balance(addresses: string[], tip: number): Promise<{ balance: number; received: number }>;
  utxos(addresses: string[], tip: number): Promise<Utxo[]>;
  /** Where a mined transaction (display txid) is in blocks up to `tip`; scans as far as needed. */
  locate(txid: string, tip: number): Promise<TxLocation | undefined>;
  /** As `locate`, from the blocks already scanned only (never scans). */
  scannedLocation(txid: string): TxLocation | undefined;
  /** Resolves once blocks up to `tip` are indexed (what the first query waits for). */
  ready(tip: number): Promise<void>;
}

/** Scanning runs in slices this long, so the JSON-RPC server keeps answering during a long first scan. */
const SLICE_MS = 20;

/**
 * One index for every chain the dev node serves (synthetic, corpus, mined blocks with or without
 * mempool transactions, reorgs): built by scanning the chain's blocks (`chain.indexedTxs`) on the
 * first query that needs it — a node nobody asks pays nothing — then kept current: mined blocks
 * are scanned when a later query reaches them, and a reorg drops everything from its fork height
 * (outputs, spends, transactions) before the replacement blocks are scanned.
 *
 * Layout (no per-transaction objects: a 200,000-block chain has ~1 M transactions): every
 * transaction gets a number in chain order, so "sorted by location" is numeric order; txids are
 * 32 bytes each in one array with a chained hash on their first 4 bytes; outputs paying an
 * address are columns (transaction, index, value, address, spender); each address has its
 * outputs and its transaction numbers in chain order. Undo logs (spends, address-transaction
 * entries) pop back to any height, since a reorg only ever removes the newest entries.
 */
export function createAddressIndex(chain: DevChain): DevAddressIndex {
  const index = new ChainIndex(chain);
  chain.subscribe((e) => {
    if (e.kind === "reorg") index.truncate(e.from);
  });
  return index;
}

/** A growable column of int32 (or float64) values. */
class Column<T extends Int32Array | Float64Array> {
  data: T;
  length = 0;
  private readonly make: (n: number) => T;
  constructor(make: (n: number) => T, capacity = 1024) {
    this.make = make;
    this.data = make(capacity);
  }
  push(v: number): void {
    if (this.length === this.data.length) {
      const next = this.make(Math.ceil(this.data.length * 1.5));
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }
  last(): number {
    return this.data[this.length - 1]!;
  }
}

const ints = (capacity?: number) => new Column((n) => new Int32Array(n), capacity);

interface Waiter {
  tip: number;
  resolve: () => void;
  reject: (err: unknown) => void;
}

class ChainIndex implements DevAddressIndex {
  private readonly chain: DevChain;
  private readonly prefixes: { p2pkh: readonly number[]; p2sh: readonly number[] };
  /** Highest height indexed (chain.base − 1: none). */
  private scanned: number;
  /** First transaction number of each indexed height (from chain.base). */
  private readonly starts = ints();

  // Transactions: wire txids, 32 bytes each; a hash chain per bucket (newest first).
  private txCount = 0;
  private wireTxids = new Uint8Array(32 * 1024);
  private txNext = new Int32Array(1024);
  /** First output (in `outs`) of each transaction paying an address, or −1. */
  private txFirstOut = new Int32Array(1024);
  private buckets = new Int32Array(1024).fill(-1);

  // Outputs paying an address, in chain order.
  private readonly outTx = ints();
  private readonly outIndex = ints();
  private readonly outAddress = ints();
  private readonly outValue = new Column((n) => new Float64Array(n));
  /** Spending transaction, or −1. */
  private readonly outSpender = ints();

  /** Undo log of spends: output, spending transaction. */
  private readonly spentOut = ints();
  private readonly spentBy = ints();
  /** Undo log of address-transaction entries: address, transaction. */
  private readonly touchedAddress = ints();
  private readonly touchedTx = ints();

  // Addresses, by key (type letter + 20-byte hash, latin1).
  private readonly ids = new Map<string, number>();
  private readonly keys: string[] = [];
  private readonly addressTxs: number[][] = [];
  private readonly addressOuts: number[][] = [];

  private waiters: Waiter[] = [];
  private scanning = false;

  constructor(chain: DevChain) {
    this.chain = chain;
    this.scanned = chain.base - 1;
    this.prefixes = TADDR_PREFIXES[chain.network];
  }

  ready(tip: number): Promise<void> {
    if (this.scanned >= tip) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.waiters.push({ tip, resolve, reject });
      if (!this.scanning) {
        this.scanning = true;
        setImmediate(() => this.scanSlice());
      }
    });
  }

  async txids(addresses: string[], start: number, end: number): Promise<string[]> {
    await this.through(end);
    const lo = this.firstTx(start);
    const hi = this.firstTx(end + 1);
    const lists = this.addressIds(addresses).map((id) => {
      const list = this.addressTxs[id]!;
      return list.slice(lowerBound(list, lo), lowerBound(list, hi));
    });
    let all = lists.length === 1 ? lists[0]! : lists.flat().sort((a, b) => a - b);
    if (lists.length > 1) all = all.filter((t, i) => i === 0 || t !== all[i - 1]);
    return all.map((t) => this.displayTxid(t));
  }

  async balance(addresses: string[], tip: number): Promise<{ balance: number; received: number }> {
    await this.through(tip);
    const hi = this.firstTx(tip + 1);
    let balance = 0;
    let received = 0;
    for (const id of this.addressIds(addresses))
      for (const o of this.addressOuts[id]!) {
        if (this.outTx.data[o]! >= hi) break;
        const value = this.outValue.data[o]!;
        received += value;
        if (this.unspent(o, hi)) balance += value;
      }
    return { balance, received };
  }

  async utxos(addresses: string[], tip: number): Promise<Utxo[]> {
    await this.through(tip);
    const hi = this.firstTx(tip + 1);
    const outs: number[] = [];
    const ids = this.addressIds(addresses);
    for (const id of ids)
      for (const o of this.addressOuts[id]!) {
        if (this.outTx.data[o]! >= hi) break;
        if (this.unspent(o, hi)) outs.push(o);
      }
    if (ids.length > 1) outs.sort((a, b) => a - b); // output numbers are chain order
    const described = new Map<number, { address: string; script: string }>();
    return outs.map((o) => {
      const id = this.outAddress.data[o]!;
      let a = described.get(id);
      if (!a) {
        a = this.describe(id);
        described.set(id, a);
      }
      const t = this.outTx.data[o]!;
      return {
        address: a.address,
        txid: this.displayTxid(t),
        outputIndex: this.outIndex.data[o]!,
        script: a.script,
        satoshis: this.outValue.data[o]!,
        height: this.heightOf(t),
      };
    });
  }

  async locate(txid: string, tip: number): Promise<TxLocation | undefined> {
    const known = this.scannedLocation(txid);
    if (known || this.scanned >= tip) return known && known.height <= tip ? known : undefined;
    await this.through(tip);
    const found = this.scannedLocation(txid);
    return found && found.height <= tip ? found : undefined;
  }

  scannedLocation(txid: string): TxLocation | undefined {
    if (!/^[0-9a-f]{64}$/.test(txid)) return undefined;
    const t = this.find(Buffer.from(txid, "hex").reverse());
    if (t < 0) return undefined;
    const height = this.heightOf(t);
    return { height, index: t - this.starts.data[height - this.chain.base]! };
  }

  /** A reorg replaced heights from `from` on: drop everything they added. */
  truncate(from: number): void {
    if (this.scanned < from) return;
    const first = Math.max(from, this.chain.base);
    const t0 = this.starts.data[first - this.chain.base]!;
    while (this.spentBy.length > 0 && this.spentBy.last() >= t0) {
      this.outSpender.data[this.spentOut.last()] = -1;
      this.spentBy.length--;
      this.spentOut.length--;
    }
    while (this.touchedTx.length > 0 && this.touchedTx.last() >= t0) {
      this.addressTxs[this.touchedAddress.last()]!.pop();
      this.touchedTx.length--;
      this.touchedAddress.length--;
    }
    while (this.outTx.length > 0 && this.outTx.last() >= t0) {
      this.addressOuts[this.outAddress.last()]!.pop();
      for (const c of [this.outTx, this.outIndex, this.outAddress, this.outValue, this.outSpender])
        c.length--;
    }
    // Newest first: each removed transaction is the head of its bucket's chain.
    for (let t = this.txCount - 1; t >= t0; t--) this.buckets[this.bucketOf(t)] = this.txNext[t]!;
    this.txCount = t0;
    this.starts.length = first - this.chain.base;
    this.scanned = first - 1;
  }

  /** Waits until blocks through `tip` are indexed (a reorg while waiting may undo some: loop). */
  private async through(tip: number): Promise<void> {
    while (this.scanned < Math.min(tip, this.chain.tip())) await this.ready(tip);
  }

  private scanSlice(): void {
    const end = performance.now() + SLICE_MS;
    try {
      const wanted = this.waiters.reduce((m, w) => Math.max(m, w.tip), this.scanned);
      const target = Math.min(this.chain.tip(), wanted);
      while (this.scanned < target && performance.now() < end) this.add(this.scanned + 1);
    } catch (err) {
      this.scanning = false;
      const waiting = this.waiters;
      this.waiters = [];
      for (const w of waiting) w.reject(err);
      return;
    }
    const waiting = this.waiters;
    this.waiters = [];
    for (const w of waiting) {
      // A tip above the chain's (a reorg cannot lower it; callers pass served tips) is as done as it gets.
      if (w.tip <= this.scanned || this.scanned >= this.chain.tip()) w.resolve();
      else this.waiters.push(w);
    }
    if (this.waiters.length > 0) setImmediate(() => this.scanSlice());
    else this.scanning = false;
  }

  /** Indexes block `height` (the next one). */
  private add(height: number): void {
    const txs = this.chain.indexedTxs(height);
    this.starts.push(this.txCount);
    // Genesis outputs are unspendable and zebra leaves the whole block out of its address index.
    const genesis = height === 0;
    for (const tx of txs) {
      const t = this.addTx(tx.wireTxid);
      if (!genesis) this.addTransparent(t, tx);
    }
    this.scanned = height;
  }

  private addTransparent(t: number, tx: IndexedTx): void {
    for (const input of tx.vin) {
      const from = this.find(input.wirePrevTxid);
      if (from < 0) continue;
      const o = this.outputOf(from, input.index);
      if (o < 0) continue;
      // A second spend (only a chain no node would accept has one) still touches the address.
      if (this.outSpender.data[o] === -1) {
        this.outSpender.data[o] = t;
        this.spentOut.push(o);
        this.spentBy.push(t);
      }
      this.touch(this.outAddress.data[o]!, t);
    }
    tx.vout.forEach((out, n) => {
      const key = this.scriptKey(out.script);
      if (key === undefined) return;
      let id = this.ids.get(key);
      if (id === undefined) {
        id = this.keys.length;
        this.ids.set(key, id);
        this.keys.push(key);
        this.addressTxs.push([]);
        this.addressOuts.push([]);
      }
      const o = this.outTx.length;
      if (this.txFirstOut[t] === -1) this.txFirstOut[t] = o;
      this.outTx.push(t);
      this.outIndex.push(n);
      this.outAddress.push(id);
      this.outValue.push(out.value);
      this.outSpender.push(-1);
      this.addressOuts[id]!.push(o);
      this.touch(id, t);
    });
  }

  private touch(id: number, t: number): void {
    const list = this.addressTxs[id]!;
    if (list[list.length - 1] === t) return;
    list.push(t);
    this.touchedAddress.push(id);
    this.touchedTx.push(t);
  }

  private unspent(o: number, hi: number): boolean {
    const by = this.outSpender.data[o]!;
    return by === -1 || by >= hi;
  }

  /** Output `n` of transaction `t` if it pays an address, else −1. */
  private outputOf(t: number, n: number): number {
    for (let o = this.txFirstOut[t]!; o >= 0 && o < this.outTx.length && this.outTx.data[o] === t; o++)
      if (this.outIndex.data[o] === n) return o;
    return -1;
  }

  private addTx(wireTxid: Uint8Array): number {
    if (this.txCount === this.txNext.length) this.grow();
    const t = this.txCount++;
    this.wireTxids.set(wireTxid, 32 * t);
    this.txFirstOut[t] = -1;
    const b = this.bucketOf(t);
    this.txNext[t] = this.buckets[b]!;
    this.buckets[b] = t;
    return t;
  }

  private bucketOf(t: number): number {
    const i = 32 * t;
    const x = this.wireTxids;
    return (x[i]! | (x[i + 1]! << 8) | (x[i + 2]! << 16) | (x[i + 3]! << 24)) & (this.buckets.length - 1);
  }

  /** Transaction number of a wire txid, or −1. */
  private find(wire: Uint8Array): number {
    const b = (wire[0]! | (wire[1]! << 8) | (wire[2]! << 16) | (wire[3]! << 24)) & (this.buckets.length - 1);
    const x = this.wireTxids;
    for (let t = this.buckets[b]!; t >= 0; t = this.txNext[t]!) {
      let i = 0;
      const at = 32 * t;
      while (i < 32 && x[at + i] === wire[i]) i++;
      if (i === 32) return t;
    }
    return -1;
  }

  private grow(): void {
    const n = Math.ceil(this.txNext.length * 1.5);
    const wire = new Uint8Array(32 * n);
    wire.set(this.wireTxids);
    this.wireTxids = wire;
    const next = new Int32Array(n);
    const firstOut = new Int32Array(n);
    firstOut.set(this.txFirstOut);
    this.txNext = next;
    this.txFirstOut = firstOut;
    let size = this.buckets.length;
    while (size < n) size *= 2;
    this.buckets = new Int32Array(size).fill(-1);
    for (let t = 0; t < this.txCount; t++) {
      const b = this.bucketOf(t);
      this.txNext[t] = this.buckets[b]!;
      this.buckets[b] = t;
    }
  }

  /** First transaction number at `height` or later (txCount past the indexed heights). */
  private firstTx(height: number): number {
    const base = this.chain.base;
    if (height <= base) return 0;
    if (height > this.scanned) return this.txCount;
    return this.starts.data[height - base]!;
  }

  private heightOf(t: number): number {
    const s = this.starts.data;
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (s[mid]! <= t) lo = mid;
      else hi = mid - 1;
    }
    return this.chain.base + lo;
  }

  private displayTxid(t: number): string {
    const x = this.wireTxids;
    const at = 32 * t + 31;
    for (let i = 0; i < 32; i++) scratch[i] = x[at - i]!;
    return scratch.toString("hex");
  }

  /** An output script's address key: "h" (P2PKH) or "s" (P2SH) and the 20-byte hash, latin1. */
  private scriptKey(s: Uint8Array): string | undefined {
    if (
      s.length === 25 &&
      s[0] === 0x76 &&
      s[1] === 0xa9 &&
      s[2] === 0x14 &&
      s[23] === 0x88 &&
      s[24] === 0xac
    )
      return `h${latin1(s, 3)}`;
    if (s.length === 23 && s[0] === 0xa9 && s[1] === 0x14 && s[22] === 0x87) return `s${latin1(s, 2)}`;
    return undefined;
  }

  /** Indexed addresses among `addresses`, each once (zebrad takes a set). */
  private addressIds(addresses: string[]): number[] {
    const out = new Set<number>();
    for (const a of addresses) {
      const payload = decodeBase58check(a);
      if (payload?.length !== 22) continue;
      const is = (p: readonly number[]) => payload[0] === p[0] && payload[1] === p[1];
      const type = is(this.prefixes.p2pkh) ? "h" : is(this.prefixes.p2sh) ? "s" : undefined;
      const id = type === undefined ? undefined : this.ids.get(`${type}${latin1(payload, 2)}`);
      if (id !== undefined) out.add(id);
    }
    return [...out];
  }

  private describe(id: number): { address: string; script: string } {
    const key = this.keys[id]!;
    const hash = Buffer.from(key.slice(1), "latin1");
    const p2pkh = key[0] === "h";
    const prefix = p2pkh ? this.prefixes.p2pkh : this.prefixes.p2sh;
    const hex = hash.toString("hex");
    return {
      address: base58check(Uint8Array.from([...prefix, ...hash])),
      script: p2pkh ? `76a914${hex}88ac` : `a914${hex}87`,
    };
  }
}

const scratch = Buffer.alloc(32);

function latin1(b: Uint8Array, from: number): string {
  return Buffer.from(b.buffer, b.byteOffset + from, 20).toString("latin1");
}

/** First position in sorted `list` whose value is ≥ v. */
function lowerBound(list: number[], v: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]! < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
