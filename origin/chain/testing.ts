import { concatBytes } from "../../proto/bytes.ts";
import { ChainParseError } from "./errors.ts";
import { sha256d } from "./hashes.ts";
import { merkleRoot } from "./merkle.ts";

/** Test helper: the ChainParseError `fn` throws (anything else is rethrown). */
export function catchParse(fn: () => unknown): ChainParseError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ChainParseError) return err;
    throw err;
  }
  throw new Error("expected a ChainParseError");
}

function compactSize(n: number): Uint8Array {
  if (n < 0xfd) return Uint8Array.of(n);
  if (n <= 0xffff) return Uint8Array.of(0xfd, n & 0xff, n >>> 8);
  return Uint8Array.of(0xfe, n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, n >>> 24);
}

/**
 * Test helper: a block around given raw txs, reusing a real header (prefix up to and including the
 * solution) with its merkle root recomputed. `txids` are the txs' wire txids in order.
 */
export function buildBlock(
  headerFrom: Uint8Array,
  headerLength: number,
  txs: Uint8Array[],
  txids: Uint8Array[],
) {
  const header = headerFrom.slice(0, headerLength);
  header.set(merkleRoot(txids), 36);
  const parts = [header, compactSize(txs.length), ...txs];
  return { raw: concatBytes(parts), wireHash: sha256d(header) };
}
