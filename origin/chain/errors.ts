import { LightedgeError } from "../../proto/errors.ts";

/**
 * Bytes that do not parse as a Zcash block or transaction. Carries where: the transaction index
 * (-1 = header / outside any tx) and the byte offset into the input.
 */
export class ChainParseError extends LightedgeError {
  readonly txIndex: number;
  readonly offset: number;

  constructor(message: string, txIndex: number, offset: number) {
    const at = txIndex >= 0 ? `tx ${txIndex}, byte ${offset}` : `byte ${offset}`;
    super("malformed", "chain-parse", `${message} (${at})`);
    this.txIndex = txIndex;
    this.offset = offset;
  }
}
