import { readActionBundle } from "./actions.ts";
import { sha256d } from "./hashes.ts";
import { skipJoinSplits } from "./joinsplit.ts";
import { Reader } from "./reader.ts";
import { EMPTY_SAPLING, readSaplingV4, readSaplingV5, skipSaplingV4Binding } from "./sapling.ts";
import { readTxIns, readTxOuts } from "./transparent.ts";
import { zip244Txid } from "./txid-zip244.ts";
import type { ParsedTx, ParseOptions } from "./types.ts";

// nVersionGroupId per format (protocol spec §7.1; ZIP 202, 243, 225, 229).
const OVERWINTER_GROUP = 0x03c48270;
const SAPLING_GROUP = 0x892f2085;
const NU5_GROUP = 0x26a7270a;
const V6_GROUP = 0xd884b698;
/** zcash-test-vectors' Ironwood vectors use this placeholder group id (ironwood.md "Traps"). */
const V6_TEST_GROUP = 0xffffffff;

const expectedGroup: Record<number, number> = { 3: OVERWINTER_GROUP, 4: SAPLING_GROUP, 5: NU5_GROUP };

function readV1V4(r: Reader, tx: ParsedTx): void {
  tx.vin = readTxIns(r);
  tx.vout = readTxOuts(r);
  tx.lockTime = r.u32("lock_time");
  if (tx.version >= 3) tx.expiryHeight = r.u32("nExpiryHeight");
  if (tx.version >= 4) tx.sapling = readSaplingV4(r);
  if (tx.version >= 2) tx.joinSplitCount = skipJoinSplits(r, tx.version >= 4);
  if (tx.version >= 4) skipSaplingV4Binding(r, tx.sapling);
}

function readV5V6(r: Reader, tx: ParsedTx): void {
  tx.consensusBranchId = r.u32("nConsensusBranchId");
  tx.lockTime = r.u32("lock_time");
  tx.expiryHeight = r.u32("nExpiryHeight");
  tx.vin = readTxIns(r);
  tx.vout = readTxOuts(r);
  tx.sapling = readSaplingV5(r);
  tx.orchard = readActionBundle(r, "Orchard");
  if (tx.version === 6) tx.ironwood = readActionBundle(r, "Ironwood");
}

function checkGroup(r: Reader, tx: ParsedTx, at: number, options: ParseOptions | undefined): void {
  if (tx.version === 6) {
    const strict = options?.strictV6 ?? true;
    if (tx.versionGroupId === V6_GROUP || (!strict && tx.versionGroupId === V6_TEST_GROUP)) return;
  } else if (expectedGroup[tx.version] === tx.versionGroupId) {
    return;
  }
  r.fail(`v${tx.version} transaction with version group id 0x${tx.versionGroupId.toString(16)}`, at);
}

/** Reads the header fields and dispatches on the transaction format. */
function readBody(r: Reader, tx: ParsedTx, options: ParseOptions | undefined): void {
  const at = r.pos;
  const header = r.u32("transaction header");
  tx.overwintered = header >>> 31 === 1;
  tx.version = header & 0x7fffffff;
  if (!tx.overwintered) {
    // Sprout-era formats: v1 (transparent) and v2 (JoinSplits). Later versions must be overwintered.
    if (tx.version !== 1 && tx.version !== 2) r.fail(`unsupported transaction version ${tx.version}`, at);
    readV1V4(r, tx);
    return;
  }
  if (tx.version < 3 || tx.version > 6) r.fail(`unsupported transaction version ${tx.version}`, at);
  const groupAt = r.pos;
  tx.versionGroupId = r.u32("nVersionGroupId");
  checkGroup(r, tx, groupAt, options);
  if (tx.version <= 4) readV1V4(r, tx);
  else readV5V6(r, tx);
}

/** Parses one transaction at the reader's position; computes its txid. */
export function readTransaction(r: Reader, index: number, options?: ParseOptions): ParsedTx {
  const start = r.pos;
  r.txIndex = index;
  const tx: ParsedTx = {
    index,
    version: 0,
    overwintered: false,
    versionGroupId: 0,
    consensusBranchId: 0,
    lockTime: 0,
    expiryHeight: 0,
    vin: [],
    vout: [],
    sapling: EMPTY_SAPLING,
    joinSplitCount: 0,
    orchard: null,
    ironwood: null,
    raw: r.buf,
    offset: start,
    wireTxid: r.buf,
  };
  readBody(r, tx, options);
  tx.raw = r.buf.subarray(start, r.pos);
  tx.wireTxid = tx.version >= 5 ? zip244Txid(tx) : sha256d(tx.raw);
  return tx;
}

/** Parses a standalone raw transaction; trailing bytes are an error. */
export function parseTransaction(raw: Uint8Array, options?: ParseOptions): ParsedTx {
  const r = new Reader(raw);
  const tx = readTransaction(r, 0, options);
  if (r.remaining !== 0) r.fail(`${r.remaining} trailing bytes after the transaction`);
  return tx;
}

/** The txid of a raw transaction, internal (wire) byte order. */
export function computeTxid(raw: Uint8Array, options?: ParseOptions): Uint8Array {
  return parseTransaction(raw, options).wireTxid;
}
