import { sha256d } from "./hashes.ts";
import { readHeader } from "./header.ts";
import { coinbaseHeight } from "./height.ts";
import { merkleRoot } from "./merkle.ts";
import { Reader } from "./reader.ts";
import { readTransaction } from "./transaction.ts";
import type { ParsedBlock, ParsedTx, ParseOptions } from "./types.ts";

// Smallest transaction (v1: header 4 + vin count 1 + vout count 1 + lock_time 4).
const MIN_TX = 10;

function equal(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Parses a raw block (`getblock <hash> 0`): header, every transaction with its txid, BIP34 height.
 * The merkle root is checked, and all bytes must be consumed.
 */
export function parseBlock(raw: Uint8Array, options?: ParseOptions): ParsedBlock {
  const r = new Reader(raw);
  r.countSites = options?.countSites;
  const header = readHeader(r);
  const n = r.count(MIN_TX, "transaction");
  if (n === 0) r.fail("block has no transactions");
  const txs: ParsedTx[] = new Array(n);
  for (let i = 0; i < n; i++) txs[i] = readTransaction(r, i, options);
  r.txIndex = -1;
  if (r.remaining !== 0) r.fail(`${r.remaining} trailing bytes after the last transaction`);
  const root = merkleRoot(txs.map((tx) => tx.wireTxid));
  if (!equal(root, header.merkleRoot)) r.fail("merkle root does not match the transactions", 36);
  const block = { header, wireHash: sha256d(header.raw), height: 0, txs, size: raw.length };
  r.txIndex = 0;
  block.height = coinbaseHeight(r, block, txs[0]!);
  return block;
}
