import type { Reader } from "./reader.ts";
import type { ParsedBlock, ParsedTx } from "./types.ts";

/**
 * BIP34 height from the coinbase scriptSig: OP_0, OP_1..OP_16, or a minimal little-endian push of
 * 1–5 bytes (zcashd's CScript() << nHeight). A genesis block (all-zero prevHash) has none: 0.
 */
export function coinbaseHeight(r: Reader, block: Pick<ParsedBlock, "header">, coinbase: ParsedTx): number {
  if (block.header.wirePrevHash.every((b) => b === 0)) return 0;
  const input = coinbase.vin[0];
  if (coinbase.vin.length !== 1 || input === undefined)
    r.fail("coinbase must have exactly one input", coinbase.offset);
  const script = input.scriptSig;
  const at = script.byteOffset - r.buf.byteOffset;
  const op = script[0];
  if (op === undefined) r.fail("empty coinbase script (no BIP34 height)", at);
  if (op === 0x00) return 0;
  if (op >= 0x51 && op <= 0x60) return op - 0x50;
  if (op < 1 || op > 5 || script.length < 1 + op)
    r.fail("coinbase script does not start with a BIP34 height", at);
  let height = 0;
  for (let i = op; i >= 1; i--) height = height * 256 + script[i]!;
  // The top byte's high bit is the sign (CScriptNum); heights are never negative.
  if (script[op]! & 0x80) r.fail("negative BIP34 height", at);
  return height;
}
